// The keyword index's settings: a store made before issue 15 has a consistent one (init recreates it).
SHOW INDEXES YIELD name, type, options
WHERE name = $name AND type = 'FULLTEXT'
RETURN name, coalesce(options.indexConfig['fulltext.eventually_consistent'], false) AS eventually_consistent
