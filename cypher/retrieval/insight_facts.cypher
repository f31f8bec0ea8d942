// The typed insight of each insight in $ids (its facts, with dates and citations): what a
// context shows of an insight, the facts most relevant to the query first (issue 39), and the
// text of the members it summarises, so the context can tell whether the insight's lines say
// something its members' lines would not, or the same in fewer words (issue 47's floor).
MATCH (i:Memory) WHERE i.id IN $ids AND i.insight_json IS NOT NULL
RETURN i.id AS id, i.insight_json AS insight,
       [(i)-[s:SUMMARIZES]->(m:Memory) WHERE NOT coalesce(s.reverted, false) | {id: m.id, content: m.content}] AS members
