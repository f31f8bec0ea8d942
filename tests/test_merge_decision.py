"""The merge decision's stages without storage: the difference check and the verifier.

Each difference class has its own examples (none from the dev data); a pair that looks like a
duplicate to the embedding (cosine and title similarity set high here on purpose) must never
come out `duplicate` when the texts differ in meaning."""

import pytest

from graphcons.core.config import MergeConfig, load_config
from graphcons.core.errors import ConfigError
from graphcons.maintenance.merge import verify
from graphcons.maintenance.merge.guard import contradictions, differences
from graphcons.maintenance.merge.score import CONFLICT, DUPLICATE, score_pair

DIFFERENT = {
    "antonym": [("The backup job runs before the nightly deploy.", "The backup job runs after the nightly deploy."),
                ("The fridge door was left open overnight.", "The fridge door was left closed overnight."),
                ("Latency increased after the cache change.", "Latency decreased after the cache change."),
                ("The staging bucket is public.", "The staging bucket is private."),
                ("The feature flag is enabled for beta users.", "The feature flag is disabled for beta users.")],
    "direction": [("She moved the invoices into the archive folder.", "She moved the invoices out of the archive folder."),
                  ("The cat climbed up the ladder.", "The cat climbed down the ladder."),
                  ("The drone landed on the roof.", "The drone took off from the roof.")],
    "resumption": [("The vendor resumed shipments to Lisbon.", "The vendor suspended shipments to Lisbon.")],
    "role_reversal": [("Alice reports to Bob.", "Bob reports to Alice."),
                      ("The billing service calls the ledger service.", "The ledger service calls the billing service."),
                      ("The dog chased the mail carrier.", "The mail carrier chased the dog.")],
    "number": [("The cache holds 512 entries per shard.", "The cache holds 1024 entries per shard."),
               ("Revenue grew 4.6 percent in March.", "Revenue grew 4.2 percent in March."),  # not a rounding
               ("Retries stop after three attempts.", "Retries stop after five attempts."),
               ("A replica lagged behind the leader.", "Two replicas lagged behind the leader."),  # one vs several
               ("One engineer was paged at night.", "Three engineers were paged at night."),
               ("The children drew a horse.", "The children drew four horses."),
               # number words of any size (issue 59: "fifteen" was no number)
               ("The user has read twelve books this year.", "The user has read fifteen books this year."),
               ("Thirteen people joined the call.", "Nineteen people joined the call."),
               ("The store keeps twenty-five crates.", "The store keeps thirty-five crates."),
               ("The field seats two hundred fans.", "The field seats three thousand fans."),
               ("The app has 2 million users.", "The app has 3 million users.")],
    "date": [("The migration is scheduled for Friday.", "The migration is scheduled for Monday."),
             ("The backup ran yesterday.", "The backup ran today."),  # two relative days
             ("The contract renews every March.", "The contract renews every October.")],
    "name": [("The outage was handled by Priya.", "The outage was handled by Marco."),
             ("The IMF approved the loan.", "The ECB approved the loan."),  # two acronyms, two bodies
             ("The US team won the final.", "The British team won the final."),  # US: a name, not "us"
             ("Our payments run through Stripe.", "Our payments run through Adyen.")],
    "contrast": [("The user's car is blue.", "The user's car is green."),
                 ("She plays tennis on Sundays.", "She plays golf on Sundays."),
                 ("The guests were sitting on the terrace.", "The guests were dancing on the terrace."),
                 ("The old cat is lying on the porch.", "The old cat is running on the porch."),  # lying: lie
                 ("The courier is resting near the gate.", "The courier is walking near the gate.")],
    "negation": [("The user wants email notifications.", "The user does not want email notifications."),
                 ("The API retries failed writes.", "The API never retries failed writes."),
                 ("Ship it with the audit log.", "Ship it without the audit log.")],
}
EXPECTED = {"antonym": "antonym", "direction": "antonym", "resumption": "antonym", "role_reversal": "role_reversal", "number": "numbers",
            "date": "dates", "name": "names", "negation": "negation", "contrast": "contrast"}

SAME = [  # normalisation must not turn these into conflicts (issue 11, point 4)
    ("Strikes Continue In The Port Of Rotterdam", "Strikes continue in the port of Rotterdam"),
    ("The U.K. office closed early", "The UK office closed early"),
    ("I dont know the root cause", "I don't know the root cause"),
    ("The fish is followed by the turtle", "The turtle follows the fish"),
    ("Deploy approved by Alice on Monday", "On Monday, Alice approved the deploy"),
    ("The build failed at 10:00 on the CI runner", "The build failed on the CI runner"),  # a detail added
    ("Three retries then fail", "3 retries then fail"),
    ("Lena's team owns the double-decker queue", "Lena's team owns the double decker queue"),
    ("The IMF published the lending guidance", "The International Monetary Fund published the lending guidance"),  # acronym
    ("Quarterly revenue was $4.32 billion", "Quarterly revenue was $4.3 billion"),  # the figure rounded
    ("The patch shipped yesterday", "The patch shipped on Tuesday"),  # a relative day vs a weekday: maybe one day
    ("The vendor had no comment on the outage", "The vendor declined to comment on the outage"),  # implicit negation
    ("The nightly job did not finish", "The nightly job failed to finish"),
    ("Users had nothing but praise for the new search", "Users had high praise for the new search"),  # an idiom
    ("The two US offices closed", "The two U.S. offices closed"),  # US is a name here, not the pronoun
    ("The parcel came into the depot at noon", "The parcel came on a truck from the port"),  # into/from, apart
    ("The red team ran the drill", "The red team ran the drill twice"),  # one colour, no contrast
    ("Two women reviewed the draft", "The women reviewed the draft"),  # a count added, not changed
    ("A man fixed the two pumps", "The men fixed two pumps"),  # women / woman, men / man align
    ("The store keeps twenty-five crates", "The store keeps 25 crates"),  # a compound, spelt or figured
    ("The app has 2 million users", "The app has two million users"),
    ("The trip took one hundred and five days", "The trip took 105 days"),
]


def memory(mid: str, text: str, weight: float = 0.5) -> dict:
    return {"id": mid, "content": text, "title": "", "title_derived": True, "effective_weight": weight,
            "evidence_count": 1, "version": 1, "namespace": "default", "subject": "s"}


@pytest.mark.parametrize("kind,a,b", [(k, a, b) for k, pairs in DIFFERENT.items() for a, b in pairs])
def test_each_difference_class_is_a_conflict_never_a_duplicate(kind, a, b):
    assert EXPECTED[kind] in contradictions(a, b), (a, b)
    assert EXPECTED[kind] in contradictions(b, a)  # either order
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.97, MergeConfig())
    assert p.outcome == CONFLICT and p.p_duplicate is None and p.contradictions


@pytest.mark.parametrize("a,b", SAME)
def test_normalisation_finds_no_difference_in_meaning(a, b):
    assert contradictions(a, b) == [] and contradictions(b, a) == []


def test_a_close_paraphrase_is_a_duplicate_and_every_stage_is_recorded():
    a, b = "The checkout service returned 503 errors after deploy 4.2.", \
        "After deploy 4.2 the checkout service returned 503 errors."
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.96, MergeConfig())
    assert p.outcome == DUPLICATE and p.p_duplicate >= MergeConfig().propose_at
    assert p.verifier == "rules" and set(p.features) >= set(verify.FEATURES)
    assert p.score >= MergeConfig().threshold and p.contradictions == []


def test_under_the_candidate_floor_nothing_is_verified():
    p = score_pair(memory("m-a", "Redis is down"), memory("m-b", "The quarterly report is late"), 0.1,
                   MergeConfig())
    assert p.outcome == "nothing" and p.p_duplicate is None and p.features == {}


def test_a_restated_class_is_no_added_fact_but_a_new_role_is():
    d = differences("The user prefers TypeScript", "TypeScript is the user's preferred language")
    assert d.only_a == [] and d.only_b == [] and d.conflicts == []
    d = differences("Ana joined the platform team", "Ana joined the platform team and is its manager")
    assert d.only_b == ["manager"]  # not a copula sentence about the shared subject: a real addition
    d = differences("Alice is the manager", "Alice is the engineer")
    assert d.only_a == ["manager"] and d.only_b == ["engineer"]  # both sides differ: not a restatement


def test_a_question_is_never_merged_with_a_statement():
    """Asking whether something holds restates nothing: the pair is kept apart, no verifier runs."""
    p = score_pair(memory("m-a", "Is the staging cluster still on Kubernetes 1.29?"),
                   memory("m-b", "The staging cluster is still on Kubernetes 1.29."), 0.97, MergeConfig())
    assert p.outcome != DUPLICATE and p.apart == ["question"] and p.p_duplicate is None
    assert p.contradictions == []  # not a contradiction either


def test_words_that_do_not_line_up_are_no_restatement():
    """Same-subject texts sharing a vocabulary but not its order (tag lists, shuffled notes) are kept
    apart whatever the verifier would say; a reordered clause still lines up enough to merge."""
    a = "cache queue disk shard deploy rollback alert latency retry quota ledger invoice"
    b = "ledger alert retry invoice vector graph quota cache session token latency disk"
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.97, MergeConfig())
    assert p.features["order_ratio"] < MergeConfig().min_order_ratio
    assert p.outcome != DUPLICATE and "word order" in p.apart
    c, d = "On Friday, after the deploy, the cache was flushed.", "The cache was flushed on Friday after the deploy."
    q = score_pair(memory("m-c", c), memory("m-d", d), 0.95, MergeConfig())
    assert q.features["order_ratio"] >= MergeConfig().min_order_ratio and q.apart == [] and q.outcome == DUPLICATE


def test_the_more_informative_text_wins_a_tie_and_the_loser_extra_is_named():
    short = "The nightly export writes to the reports bucket."
    long = "The nightly export writes to the reports bucket, encrypted with the tenant key."
    p = score_pair(memory("m-a", short), memory("m-b", long), 0.95, MergeConfig())
    assert p.winner == "m-b"  # equal weight and evidence: more content wins, not the smaller id
    heavy = score_pair(memory("m-a", short, weight=0.9), memory("m-b", long), 0.95, MergeConfig())
    assert heavy.winner == "m-a" and {"encrypt", "tenant", "key"} <= set(heavy.only_loser)


def test_verifier_probability_follows_its_evidence():
    rules = verify.get("rules")
    d_same = differences("The cache is warm.", "The cache is warm.")
    d_diff = differences("The cache is warm.", "The cache in the Frankfurt region is warm after the nightly job.")
    same = rules.p_duplicate(verify.features(0.97, 1.0, d_same))
    diff = rules.p_duplicate(verify.features(0.80, 0.7, d_diff))
    assert 0 <= diff < same <= 1


def test_an_added_clause_weighs_more_than_words_said_differently():
    """Same length of difference: a run of new content (an added clause) vs scattered rewordings."""
    rules = verify.get("rules")
    base = "The payments service retried the failed transfers overnight without losing any of them."
    added = differences(base, "The payments service retried the failed transfers overnight without losing any of "
                              "them, until the regional ledger database refused every new connection.")
    reworded = differences(base, "Overnight the payment system re-sent the failed transfers and lost none of them.")
    assert max(added.runs) > max(reworded.runs)
    assert rules.p_duplicate(verify.features(0.9, 0.8, added)) < rules.p_duplicate(verify.features(0.9, 0.8, reworded))


def test_verifier_is_chosen_in_config_and_an_unknown_one_is_refused(tmp_path):
    bad = tmp_path / "graphcons.toml"
    bad.write_text('[merge]\nverifier = "oracle"\n')
    with pytest.raises(ConfigError, match="merge.verifier"):
        load_config(bad, env={})
    good = tmp_path / "ok.toml"
    good.write_text('[merge]\nverifier = "rules"\npropose_at = 0.6\nauto_apply_at = 0.95\n')
    cfg = load_config(good, env={}).merge
    assert (cfg.verifier, cfg.propose_at, cfg.auto_apply_at) == ("rules", 0.6, 0.95)


PARAPHRASES = [  # the same fact in other words (issue 11's example first; none from the dev data)
    ("The user prefers TypeScript", "TypeScript is the user's preferred language"),
    ("The nightly backup writes to the archive bucket.", "Backups are written to the archive bucket every night."),
    ("Ana leads the payments team.", "The payments team is led by Ana."),
]


@pytest.mark.parametrize("a,b", PARAPHRASES)
def test_a_true_paraphrase_is_a_duplicate(embedder, a, b):
    """With the cosine the offline embedder gives these untitled memories (as admission embeds them)."""
    from graphcons.core.memory import derived_title, embedded_text

    va, vb = embedder.embed([embedded_text(derived_title(t), t) for t in (a, b)])
    cosine = sum(x * y for x, y in zip(va, vb))
    p = score_pair(memory("m-a", a), memory("m-b", b), cosine, MergeConfig())
    assert p.contradictions == [] and p.apart == [] and p.restated, (p.p_duplicate, p.features)
    # the verifier leans to "the same" (issue 29: the operating point alone decides whether it is proposed;
    # short restatements sit under it, bench/merge/results/merge-quality.json)
    assert p.p_duplicate >= 0.5 and (p.outcome == DUPLICATE) == (p.p_duplicate >= MergeConfig().propose_at)


# -- issue 29: the miss classes, each as a class (none of these sentences is from the dev data) ----------
NEGATED = [  # a sentence and its negation: never a duplicate, whatever else either text negates
    ("The user drinks coffee in the morning.", "The user never drinks coffee in the morning."),
    ("The nightly job retries failed uploads.", "The nightly job does not retry failed uploads."),
    ("Ana works at the Lisbon office.", "Ana no longer works at the Lisbon office."),
    ("Alice did not attend the review, and Bob replied to the invite.",
     "Alice did not attend the review, and Bob never replied to the invite."),  # both negate: another word
    ("The vendor no longer ships to Porto and still ships to Braga.",
     "The vendor no longer ships to Porto and no longer ships to Braga."),
]


@pytest.mark.parametrize("a,b", NEGATED)
def test_a_sentence_and_its_negation_are_a_conflict(a, b):
    for x, y in ((a, b), (b, a)):
        p = score_pair(memory("m-a", x), memory("m-b", y), 0.97, MergeConfig())
        assert p.outcome == CONFLICT and "negation" in p.contradictions, (x, y)


def test_a_restatement_is_proposed_only_over_the_propose_point():
    """Every content word aligns, but the verifier is unsure: the operating point decides, not the rule."""
    a, b = "The user prefers TypeScript", "TypeScript is the user's preferred language"
    cfg = MergeConfig()
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.80, cfg)
    assert p.restated and p.p_duplicate is not None
    assert (p.outcome == DUPLICATE) == (p.p_duplicate >= cfg.propose_at)
    high = score_pair(memory("m-a", a), memory("m-b", b), 0.80, cfg.model_copy(update={"propose_at": p.p_duplicate + 0.01}))
    assert high.outcome != DUPLICATE and high.restated


DIFFERENT_NAMES = [  # each text names someone or something the other does not, in another slot
    ("In the final Porto beat Benfica 2-1 after extra time, said Costa.",
     "In the final Porto beat Braga 2-1 after extra time, Costa said."),
    ("The audit by Deloitte found the gap, according to Reyes.", "According to Reyes the gap was found in an audit by KPMG."),
]


@pytest.mark.parametrize("a,b", DIFFERENT_NAMES)
def test_a_differing_name_is_never_proposed(a, b):
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.97, MergeConfig())
    assert p.outcome != DUPLICATE and (p.contradictions or any(r.startswith("different names") for r in p.apart))


VARIANTS = [  # one name spelt two ways (transliterations, accents, doubled letters)
    ("Muammar Gaddafi met the delegation in Tripoli.", "Moammar Qadhafi met the delegation in Tripoli."),
    ("The report quotes Mohammed Haddad on the tariff.", "The report quotes Muhammad Haddad on the tariff."),
    ("The orchestra played Tchaikovsky in Leeds.", "The orchestra played Chaikovsky in Leeds."),
    ("The interview with José Saramago ran on Sunday.", "The interview with Jose Saramago ran on Sunday."),
    ("A statement signed by Al Qaeda was posted online.", "A statement signed by Al Qaida was posted online."),  # an organisation
    ("The board of Gazprom approved the dividend.", "The board of Gasprom approved the dividend."),
]


def test_names_that_only_sound_alike_are_still_two_names():
    assert "names" in contradictions("The speech was written by Kerry.", "The speech was written by Carey.")
    assert "names" in contradictions("The delegation from Iran signed it.", "The delegation from Iraq signed it.")


@pytest.mark.parametrize("a,b", VARIANTS)
def test_spelling_variants_of_one_name_are_no_conflict(a, b):
    assert contradictions(a, b) == [] and contradictions(b, a) == []


DISTINCT_EVENTS = [  # two things that share words: a RELATED link or nothing, never a conflict
    ("Checkout returned HTTP 503 for 12 minutes right after deploy 4.2; rollback fixed it.",
     "HTTP 503 errors on checkout started right after deploy 4.3; rolling back the deploy fixed it."),
    ("Deploy 4.2 fixed the leak.", "Deploy 4 fixed the leak."),
    ("Received block blk_7731 of size 1024 from /10.0.3.7", "Received block blk_9902 of size 2048 from /10.0.3.9"),
    ("Finished task 3.0 in stage 7.0 (TID 41) in 212 ms", "Finished task 5.0 in stage 7.0 (TID 43) in 198 ms"),
    ("Ticket #481 was closed as a duplicate.", "Ticket #502 was closed as a duplicate."),
    ("onStepCounterChanged 4812", "onStepCounterChanged 4815"),
]


@pytest.mark.parametrize("a,b", DISTINCT_EVENTS)
def test_two_events_that_share_words_are_no_conflict(a, b):
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.97, MergeConfig())
    assert p.outcome in ("near_paraphrase_with_difference", "nothing") and p.contradictions == []
    assert any(r.startswith("different things") for r in p.apart)


SAME_THING = [  # one attribute of one thing with two values: a conflict
    ("The design review meeting is at 3pm on Thursday.", "The design review meeting is at 4pm on Thursday."),
    ("Alice is 32 years old.", "Alice is 33 years old."),
    ("The request timeout of the gateway is set to 30 seconds.", "The request timeout of the gateway is set to 60 seconds."),
    ("Deploy 4.2 was rolled out on Monday.", "Deploy 4.2 was rolled out on Friday."),  # one deploy, two days
]


@pytest.mark.parametrize("a,b", SAME_THING)
def test_one_attribute_with_two_values_is_a_conflict(a, b):
    p = score_pair(memory("m-a", a), memory("m-b", b), 0.97, MergeConfig())
    assert p.outcome == CONFLICT and p.apart == []


CAUSE_AND_FIX = [  # a problem under a condition and the remedy that removed it: two facts that fit together
    ("Checkout timeouts were fixed by warming the Redis cache.", "Checkout times out when the Redis cache is cold."),
    ("The API timed out until we warmed the Redis cache.", "The API times out when the Redis cache is cold."),
    ("Login errors were resolved by opening port 443 on the proxy.", "Login fails when port 443 on the proxy is closed."),
    ("Nightly exports were repaired by enabling the archive volume.",
     "Nightly exports fail if the archive volume is not enabled."),
]


@pytest.mark.parametrize("a,b", CAUSE_AND_FIX)
def test_a_cause_and_its_fix_are_no_conflict(a, b):
    """Issue 41: "timeouts fixed by warming Redis" / "times out when the Redis cache is cold" was flagged
    as an antonym conflict. Either order; the pair is kept apart (never merged), with the reason."""
    for x, y in ((a, b), (b, a)):
        p = score_pair(memory("m-a", x), memory("m-b", y), 0.97, MergeConfig())
        assert p.contradictions == [] and p.outcome != DUPLICATE
        assert any(r.startswith("cause and fix") for r in p.apart)


@pytest.mark.parametrize("a,b", [
    # the opposite outside the two clauses: one attribute with two values, still a conflict
    ("Checkout times out when the Redis cache is cold.", "Checkout times out when the Redis cache is warm."),
    ("Checkout timeouts were fixed by warming the Redis cache.", "Checkout timeouts were fixed by cooling the Redis cache."),
    ("Checkout timeouts were fixed by enabling the cache.", "Checkout timeouts were not fixed by enabling the cache."),
    ("The cache was fixed and is cold when the job starts.", "The cache is hot when the job starts."),
])
def test_a_conflict_inside_one_kind_of_clause_stays_a_conflict(a, b):
    assert contradictions(a, b) != [] and contradictions(b, a) != []
