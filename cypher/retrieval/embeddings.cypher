// The embeddings of a few hits ($ids, in order), for retrieval's diversity step: their pairwise
// cosines are a numpy product in the caller (graphcons.core.vectors.cosines), cheaper than ~1,200
// vector.similarity.cosine calls on the server (issue 52: 12 of a 10k retrieve's ~70 ms). Each is
// collected inside a list so a memory without one keeps its place (null).
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id})
RETURN collect([m.embedding]) AS es
