// The typed insight of each insight in $ids (its facts, with dates and citations): what a
// context shows of an insight, the facts most relevant to the query first (issue 39).
MATCH (i:Memory) WHERE i.id IN $ids AND i.insight_json IS NOT NULL
RETURN i.id AS id, i.insight_json AS insight
