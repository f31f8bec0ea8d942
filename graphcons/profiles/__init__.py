"""Layer 3: entity profiles (issue 14, seed 004; cards issue 47), in one wing (issue 60).

What the store knows about one entity (a memory `subject` within a namespace), proposed,
reviewed and versioned:

- `profile`: the stored `(:Profile)` and its `(:ProfileVersion)` history (read, save);
- `reflect`: the per-entity reflection pass (which memories are shown, which model reflects,
  the `reflect` proposal, the due entities of the weekly job);
- `reflection_grounding`: the guard over a reflection's statements (each a typed `Verdict`);
- `offline_reflection`: the offline, extractive reflector;
- `reflect_kind`: the `reflect` proposal kind (the reflection folded into the profile);
- `card_items`: a subject's memories said the short way, by their parse (each a `store.card.CardItem`);
- `card_pass`: the card pass (one `card` proposal per subject; its typed `CardsReport`);
- `card_kind`: the `card` proposal kind (the card held by the profile's next version).

It stands on the insight pipeline's providers, budgets and word checks (graphcons.consolidation);
nothing below imports it. Its Cypher: cypher/profile/, cypher/reflection/, cypher/cards/.
"""
