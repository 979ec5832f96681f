"""bench/likelihood.py: token log-probabilities from the bundled model after a cached prefix,
and how bench/answer_facts.py turns them (and the cheap scores beside them) into features."""

from __future__ import annotations

import numpy as np
import pytest

from bench import answer_facts, likelihood


def test_spread_scales_to_0_1_and_flat_values_to_0() -> None:
    assert likelihood.spread([-3.0, -1.0, -2.0]) == [0.0, 1.0, 0.5]
    assert likelihood.spread([-2.0, -2.0]) == [0.0, 0.0]
    assert likelihood.spread([]) == []


def test_log_softmax_at_matches_a_direct_computation() -> None:
    rows = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]], dtype=np.float32)
    want = [np.log(np.exp(2.0) / np.exp(rows[0]).sum()), np.log(1 / np.exp(rows[1]).sum())]
    assert np.allclose(likelihood._log_softmax_at(rows, [1, 0]), want, atol=1e-5)


def test_llm_feature_kinds() -> None:
    entry = {"texts": ["a", "b"], "ans": [-1.0, -2.0], "bare": [-3.0, -1.0], "rev": [-5.0, -4.0]}
    assert answer_facts.llm_feature(entry, "ans") == {"a": 1.0, "b": 0.0}
    # "a" gains 2 from the question, "b" loses 1: the difference ranks them the same way here,
    # and the question after each ranks "b" first.
    assert answer_facts.llm_feature(entry, "pmi") == {"a": 1.0, "b": 0.0}
    assert answer_facts.llm_feature(entry, "rev") == {"a": 0.0, "b": 1.0}
    assert answer_facts.llm_feature(entry, "pmi+rev") == {"a": 0.5, "b": 0.5}


def test_fragment_is_a_heading_or_a_few_words() -> None:
    assert answer_facts.fragment("3.10 Interrupting a display")
    assert answer_facts.fragment("SET DATAFILE MISSING SYNTAX AND MORE WORDS HERE")
    assert not answer_facts.fragment("The mathtools package provides a command for it.")


@pytest.mark.slow
def test_scorer_matches_llama_cpp_and_leaves_the_model_usable() -> None:
    """The cached-prefix scores equal llama-cpp-python's own logits over the whole text, the
    fact scores above an unrelated sentence, and generation afterwards is unchanged."""
    from llama_cpp import Llama

    from desktop_rag.engines.llm import LlamaCppLlm, Prompt

    llm = LlamaCppLlm(threads=1)
    scorer = likelihood.Scorer(llm)
    prompt = Prompt(text="Question: What is the capital of France?\nAnswer:")
    before = "".join(llm.stream(prompt, 6))
    prefix = likelihood.answer_prefix("What is the capital of France?")
    sentences = [" Paris is the capital of France.", " The weather was nice today."]
    got = scorer.logprobs(prefix, sentences)
    assert got[0].mean() > got[1].mean()

    whole = Llama(model_path=str(llm.path), n_ctx=64, logits_all=True, verbose=False)
    pre = scorer.tokens(prefix, bos=True)
    for sentence, lp in zip(sentences, got, strict=True):
        # The second is scored after the first was dropped from the cache.
        cont = scorer.tokens(sentence)
        whole.reset()
        whole.eval(pre + cont)
        rows = np.asarray(whole.scores[len(pre) - 1 : len(pre) + len(cont) - 1], dtype=np.float32)
        # Evaluated in other batches the figures differ by a few hundredths of a nat.
        assert np.allclose(lp, likelihood._log_softmax_at(rows, cont), atol=0.2)
    whole.close()
    # A sentence scores the same wherever it comes: each is dropped from the cache after it.
    again = scorer.logprobs(prefix, [sentences[0], sentences[1], sentences[0]])
    assert np.allclose(again[0], again[2]) and np.allclose(again[0], got[0])

    assert "".join(llm.stream(prompt, 6)) == before
    llm.close()


def test_context_cosines_read_the_sentence_with_its_neighbour() -> None:
    """A sentence that names nothing of the question ("It takes ten seconds.") comes near it
    when read with the sentence before it."""
    from desktop_rag.query.compose import candidates
    from desktop_rag.types import Source
    from tests.fakes import HashEmbedder

    text = "Hold the power button to reset the device. It takes ten seconds. Colours are nice."
    sources = [Source(1, "a.pdf", 1, 0.0, text)]
    found = candidates(sources)
    question = "how do I reset the device with the power button"
    own, near = answer_facts.context_cosines(question, found, sources, HashEmbedder(), "prev")
    assert near[1] > own[1]
    assert near[0] == pytest.approx(own[0])  # the first has no sentence before it
