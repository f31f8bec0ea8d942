"""The store: idempotent schema, embedder identity, configuration."""

import pytest

from graphcons.api import Graphcons
from graphcons.core.config import load_config
from graphcons.core.embedders.base import Embedder
from graphcons.core.errors import ConfigError, EmbedderMismatch


class OtherEmbedder(Embedder):
    """A second real embedder identity: the MiniLM vectors, reported under another name."""

    name = "another-model"

    def __init__(self, inner, dimensions=384):
        self.inner, self.dimensions = inner, dimensions

    def embed(self, texts):
        return self.inner.embed(texts)


def test_init_is_idempotent(g):
    first = g.init()
    second = g.init()
    assert first["store"] == second["store"]
    indexes = {r["name"] for r in g.db.run_text("SHOW INDEXES YIELD name RETURN name")}
    assert {"memory_embedding", "memory_text", "memory_dedup", "memory_id"} <= indexes
    vec = g.db.run_text("SHOW INDEXES YIELD name, options WHERE name = 'memory_embedding' RETURN options")[0]
    assert vec["options"]["indexConfig"]["vector.dimensions"] == 384


def test_changing_the_embedder_is_refused(g, config, embedder):
    g.add({"content": "A memory embedded with MiniLM"})
    for other in (OtherEmbedder(embedder), OtherEmbedder(embedder, dimensions=768)):
        with Graphcons(config, embedder=other) as g2:
            with pytest.raises(EmbedderMismatch, match="all-MiniLM-L6-v2-int8"):
                g2.add({"content": "would be mixed"})
            with pytest.raises(EmbedderMismatch):
                g2.init()
    assert g.db.run_text("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"] == 1


def test_config_file_and_environment(tmp_path):
    path = tmp_path / "graphcons.toml"
    path.write_text("[consolidation]\nmin_size = 4\n[admission]\nsimilar_k = 3\n")
    cfg = load_config(path, env={"GRAPHCONS__CONSOLIDATION__DAILY_CAP": "7", "NEO4J_URI": "bolt://h:1"})
    assert cfg.consolidation.min_size == 4 and cfg.admission.similar_k == 3
    assert cfg.consolidation.daily_cap == 7 and cfg.neo4j.uri == "bolt://h:1"
    assert cfg.consolidation.enabled is False and cfg.consolidation.dry_run is True  # off, dry-run first


def test_bad_config_names_the_key(tmp_path):
    path = tmp_path / "graphcons.toml"
    path.write_text("[consolidation]\nmin_sise = 4\n")
    with pytest.raises(ConfigError, match="consolidation.min_sise"):
        load_config(path, env={})
    path.write_text("[consolidation]\nmin_cohesion = 2\n")
    with pytest.raises(ConfigError, match="consolidation.min_cohesion"):
        load_config(path, env={})
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml", env={})


def test_a_misspelt_section_or_environment_key_is_refused_not_ignored(tmp_path):
    path = tmp_path / "graphcons.toml"
    path.write_text("[consolidaton]\nenabled = true\n")  # the user meant [consolidation]
    with pytest.raises(ConfigError, match="consolidaton"):
        load_config(path, env={})
    path.write_text("")
    with pytest.raises(ConfigError, match="merge.treshold"):
        load_config(path, env={"GRAPHCONS__MERGE__TRESHOLD": "0.9"})
    with pytest.raises(ConfigError, match="mrege"):
        load_config(path, env={"GRAPHCONS__MREGE__THRESHOLD": "0.9"})
