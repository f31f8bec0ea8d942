// The communities of the latest scan as derived data (issue 39, a recall prior): each member of
// a community gets `community` (the cluster key @ its namespace: a community never spans two
// namespaces, even when an edge does), `community_size` (its members in that namespace) and
// `community_run` (the scan that set them). Never a proposal; refreshed by every scan.
// $communities: [{key, ids}].
UNWIND $communities AS c
UNWIND c.ids AS id
MATCH (m:Memory {id: id})
WITH c.key + '@' + m.namespace AS community, collect(m) AS members
WITH community, members, size(members) AS n
UNWIND members AS m
SET m.community = community, m.community_size = n, m.community_run = $run
