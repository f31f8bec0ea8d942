"""Profile cards (issue 47 item 2, seed 004): what the store knows about a subject, each memory
said the short way, grouped, dated and cited; proposed, reviewed and versioned with the profile."""
