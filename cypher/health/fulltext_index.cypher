// The keyword index's settings: a store made before issue 15 has a consistent one, before issue 28
// one without namespace and subject (init recreates either).
SHOW INDEXES YIELD name, type, options, properties
WHERE name = $name AND type = 'FULLTEXT'
RETURN name, coalesce(options.indexConfig['fulltext.eventually_consistent'], false) AS eventually_consistent,
       properties
