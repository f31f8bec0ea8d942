// The newest cluster scan after $since (a consolidate trigger when it reported consolidation_due).
MATCH (r:ConsolidationRun)
WHERE $since IS NULL OR r.at > $since
RETURN coalesce(max(r.consolidation_due), 0) AS due
