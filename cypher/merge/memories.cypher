// The fields merge scoring reads, for memories named by id.
UNWIND $ids AS mid
MATCH (m:Memory {id: mid})
RETURN m {.id, .title, .title_derived, .content, .subject, .namespace, .status, .effective_weight,
          .evidence_count, .created_at, .version} AS memory
