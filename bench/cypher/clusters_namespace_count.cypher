MATCH (m:Memory {namespace: $namespace}) RETURN count(m) AS n
