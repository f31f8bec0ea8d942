// The cheapest query a database answers: core/recovery's probe runs it until a lost server
// answers queries again (a server that accepts connections may still be starting).
RETURN 1 AS ok
