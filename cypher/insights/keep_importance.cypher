// Seed 004: a consolidated memory keeps the highest importance among the memories it covers.
MATCH (i:Memory {id: $insight_id})
SET i.importance = $importance, i.weight_manual = $importance
RETURN i.importance AS importance
