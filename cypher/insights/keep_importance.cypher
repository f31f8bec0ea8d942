// Seed 004: a consolidated memory keeps the highest importance among the memories it covers;
// its effective weight is the weights formula's with that importance (core/weights.stored).
MATCH (i:Memory {id: $insight_id})
SET i.importance = $importance, i.weight_manual = $importance, i.effective_weight = $effective_weight
RETURN i.importance AS importance
