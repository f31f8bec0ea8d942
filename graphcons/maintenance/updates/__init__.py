"""Updates noticed (issue 51): a newer memory states a new value for what an older one stated."""
