// The embeddings of a profile's entries (its semantic memories), for confirming and
// flagging a new reflection's statements against them.
UNWIND $ids AS id
MATCH (s:Memory {id: id})
RETURN s.id AS id, s.embedding AS embedding
