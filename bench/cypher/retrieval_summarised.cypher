// bench/retrieval/answers.py: memories (insights excluded) and how many a live insight SUMMARIZES.
MATCH (m:Memory) WHERE m.kind <> 'insight'
RETURN count(m) AS memories,
       count(CASE WHEN EXISTS { (m)<-[r:SUMMARIZES]-(:Memory) WHERE NOT coalesce(r.reverted, false) } THEN 1 END) AS summarised
