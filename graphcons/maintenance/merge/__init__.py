"""Near-duplicate merge: score, the contradiction guard, the job, and the merge proposal kind."""
