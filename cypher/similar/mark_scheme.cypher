// `graphcons migrate similar`: memory $id's neighbours now follow scheme $scheme.
MATCH (m:Memory {id: $id})
SET m.similar_scheme = $scheme
