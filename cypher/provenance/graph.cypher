// Browser view: the provenance tree of one memory as a graph (insight -> members -> ...).
//   :param id => 'ins-...'
MATCH path = (root:Memory {id: $id})-[:SUMMARIZES|DERIVED_FROM*1..8]->(:Memory)
RETURN path
