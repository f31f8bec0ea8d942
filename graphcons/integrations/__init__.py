"""Framework integrations (issue 42), layer 4 beside the API and the service: each calls facade
verbs (`backend.Local`) or the HTTP API (`backend.Http`), never store modules.

    langgraph.GraphconsStore      a LangGraph BaseStore (pip install 'graphcons[langgraph]')
    langchain.GraphconsRetriever  a LangChain BaseRetriever (pip install 'graphcons[langchain]')
"""
