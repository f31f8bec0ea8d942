from graphcons.cli import main

main()
