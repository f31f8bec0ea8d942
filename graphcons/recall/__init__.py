"""Recall (issue 46): what an agent is shown for a query, on the floor of consolidation and
maintenance (it reads what they store: insights, communities, supersessions, epistemics).

- `hits`: the typed `Hit` (a memory shown, its score, what brought it there, the members it
  carries) and the modes as enums;
- `lists`: the candidate lists: vector, keyword, and the graph step (spread / PPR);
- `rank`: fusion, the community prior, one memory standing for many, diversity;
- `retrieval`: `retrieve` and `search_text` (check, rank, group under insights, hydrate, record);
- `context`: the text block an agent pastes, within a word budget.
"""
