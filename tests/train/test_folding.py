"""Input folding (loco_envs/policy/folding.py, train/networks.py ``FoldedLinear``): the first
layers computed over the input's distinct columns give the full layers' values and gradients
for every input, and a run trained folded is the run trained with the full products."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loco_envs.policy.folding import InputFolding, find_folding, folding_for, probe_inputs

torch = pytest.importorskip("torch")

LOCO = "log1p+loco_actions"
LOCO_2P = 3174  # the observation (270) and 242 x 12 action features


def _fresh_loco_inputs(rows: int = 512, seed: int = 99) -> np.ndarray:
    """Inputs of LOCO games that the probes did not play (another seed)."""
    return next(iter(probe_inputs("loco_v0", 2, LOCO, decisions=1, seed=seed)))[:rows]


def _break(x: np.ndarray, folding: InputFolding) -> tuple[np.ndarray, list[int]]:
    """A copy of ``x`` whose rows 1 and 4 break the folding (a fixed column changed, a copied
    column no longer its original), and those rows."""
    broken = x.copy()
    broken[1, folding.fixed[3]] += 0.5
    copies, originals = folding.copies
    broken[4, copies[7]] = broken[4, originals[7]] + 0.25
    return broken, [1, 4]


def test_find_folding_groups_equal_columns_and_fixes_constant_ones():
    rng = np.random.default_rng(0)
    a, b = rng.random(50), rng.random(50)
    x = np.stack([a, b, a, np.zeros(50), b, np.full(50, 0.5), a], axis=1).astype(np.float32)
    folding = find_folding([x[:20], x[20:]])
    assert folding.width == 7 and folding.keep.tolist() == [0, 1]
    assert folding.fixed.tolist() == [3, 5] and folding.values.tolist() == [0.0, 0.5]
    assert folding.source.tolist() == [0, 1, 0, 2, 1, 3, 0]
    np.testing.assert_array_equal(folding.expand(x[:, folding.keep]), x)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=5), st.integers(1, 12),
       st.integers(0, 2**32 - 1))
def test_the_groups_are_the_columns_equal_in_every_row_of_every_batch(rows, width, seed):
    """Batch after batch, only the columns that leave their group are sorted again: the
    result is the grouping of all rows at once, whatever the batches' sizes."""
    rng = np.random.default_rng(seed)
    batches = [rng.integers(0, 2, (r, width)).astype(np.float32) for r in rows]
    everything = np.concatenate(batches)
    folding = find_folding(batches)
    constant = (everything == everything[0]).all(axis=0)
    assert folding.fixed.tolist() == np.flatnonzero(constant).tolist()
    firsts = [j for j in np.flatnonzero(~constant)
              if not any((everything[:, i] == everything[:, j]).all() for i in range(j))]
    assert folding.keep.tolist() == firsts
    np.testing.assert_array_equal(folding.expand(everything[:, folding.keep]), everything)


def test_a_later_batch_splits_columns_an_earlier_one_had_equal():
    x = np.ones((4, 3), np.float32)
    y = x.copy()
    y[2, 1] = 7.0
    folding = find_folding([x, y])
    assert folding.keep.tolist() == [1] and folding.fixed.tolist() == [0, 2]
    with pytest.raises(ValueError, match="widths 3 and 2"):
        find_folding([x, x[:, :2]])
    with pytest.raises(ValueError, match="at least one batch"):
        find_folding([])
    with pytest.raises(ValueError, match="without rows"):
        find_folding([x[:0]])


def test_locos_folding_reads_a_fifth_of_the_columns():
    folding = folding_for(LOCO, LOCO_2P)
    assert folding.width == LOCO_2P and folding.folded_width < LOCO_2P // 4
    assert folding_for(LOCO, LOCO_2P) is folding  # probed once a process
    assert folding_for("log1p", 270) is None  # no action features: nothing to fold
    assert folding_for("log1p+momo_actions", 1210) is None  # repeats too little to pay
    with pytest.raises(ValueError, match="input width 3000"):
        folding_for(LOCO, 3000)


def test_the_folded_product_is_the_full_product_for_every_row():
    folding = folding_for(LOCO, LOCO_2P)
    x, off = _break(_fresh_loco_inputs(), folding)
    _, found = folding.fold_rows(x)
    assert set(off) <= set(found.tolist())
    rng = np.random.default_rng(1)
    weight = rng.standard_normal((64, LOCO_2P)).astype(np.float32)
    bias = rng.standard_normal(64).astype(np.float32)
    np.testing.assert_allclose(folding.linear(x, weight, bias), x @ weight.T + bias,
                               rtol=1e-4, atol=1e-3)


def test_spreading_a_gradient_is_the_adjoint_of_folding_a_weight():
    """<fold(W), G> = <W, spread(G)> for every W and G: the backward pass is fold's own."""
    folding = folding_for(LOCO, LOCO_2P)
    rng = np.random.default_rng(2)
    weight = rng.standard_normal((8, LOCO_2P)).astype(np.float32)
    grad_folded = rng.standard_normal((8, folding.folded_width)).astype(np.float32)
    grad_bias = rng.standard_normal(8).astype(np.float32)
    folded, bias = folding.fold_weight(weight)
    spread = folding.spread_gradient(grad_folded, grad_bias)
    left = float((folded * grad_folded).sum() + (bias * grad_bias).sum())
    assert left == pytest.approx(float((weight * spread).sum()), rel=1e-4)


def _networks(folding: InputFolding | None,
              dtype: torch.dtype = torch.float32) -> tuple[torch.nn.Module, torch.nn.Module]:
    from loco_envs.train.networks import FoldedLinear, Tanh

    torch.manual_seed(0)
    actor = torch.nn.Sequential(torch.nn.Linear(LOCO_2P, 32), Tanh(), torch.nn.Linear(32, 242))
    critic = torch.nn.Sequential(torch.nn.Linear(LOCO_2P, 32), Tanh(), torch.nn.Linear(32, 1))
    actor, critic = actor.to(dtype), critic.to(dtype)
    if folding is not None:
        actor[0] = FoldedLinear.adopting(actor[0], folding)
        critic[0] = FoldedLinear.adopting(critic[0], folding)
    return actor, critic


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_folded_layers_give_the_full_layers_values_and_gradients(dtype):
    """float32 takes the compiled passes, float64 torch's own (the path of a GPU)."""
    folding = folding_for(LOCO, LOCO_2P)
    x, _ = _break(_fresh_loco_inputs(256), folding)
    results = []
    for fold in (None, folding):
        actor, critic = _networks(fold, dtype)
        inputs = torch.from_numpy(x).to(dtype)
        loss = actor(inputs).logsumexp(dim=1).mean() + critic(inputs).square().mean()
        loss.backward()
        results.append([loss.detach()] + [p.grad for p in (*actor.parameters(),
                                                            *critic.parameters())])
    for full, folded in zip(*results, strict=True):
        torch.testing.assert_close(folded, full, rtol=1e-4, atol=1e-5)


def test_an_input_that_needs_a_gradient_gets_the_full_layers():
    folding = folding_for(LOCO, LOCO_2P)
    grads = []
    for fold in (None, folding):
        actor, _ = _networks(fold)
        inputs = torch.from_numpy(_fresh_loco_inputs(16)).requires_grad_()
        actor(inputs).sum().backward()
        grads.append(inputs.grad)
    torch.testing.assert_close(grads[1], grads[0])


def test_a_folded_layer_names_an_input_of_neither_width():
    """Its full width or its folded width (a rollout stored folded); folded rows cannot need a
    gradient of their own (there is no full input to give it to)."""
    folding = folding_for(LOCO, LOCO_2P)
    actor, _ = _networks(folding)
    layer = actor[0]
    with pytest.raises(ValueError, match=f"an input 100 wide for a layer folded from {LOCO_2P}"):
        layer(torch.zeros(3, 100))
    folded = torch.from_numpy(folding.fold_rows(_fresh_loco_inputs(4), 1)[0])
    torch.testing.assert_close(layer(folded), layer(torch.from_numpy(_fresh_loco_inputs(4))),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="folded rows cannot take a gradient"):
        layer(folded.clone().requires_grad_())


def test_a_folded_layer_works_in_inference_mode_on_every_call():
    """Nothing is cached between calls: an input written in place (as a vector env writes its
    observations) is folded again."""
    folding = folding_for(LOCO, LOCO_2P)
    full, _ = _networks(None)
    folded, _ = _networks(folding)
    x = _fresh_loco_inputs(32)
    shared = torch.from_numpy(x)
    with torch.inference_mode():
        torch.testing.assert_close(folded(shared), full(shared), rtol=1e-5, atol=1e-5)
        x[:] = _fresh_loco_inputs(32, seed=7)
        torch.testing.assert_close(folded(shared), full(shared), rtol=1e-5, atol=1e-5)


def test_a_ppo_policy_folds_without_changing_it(monkeypatch):
    """The actor's and critic's first layers become folded, keep the parameters the optimiser
    holds and their names, the policy's distribution and values stay the same, and a forward
    pass of both folds its input once."""
    import gymnasium as gym

    from loco_envs.train.networks import (
        FoldedExtractor,
        FoldedLinear,
        MaskedMlpPolicy,
        fold_first_layers,
        fold_policy,
    )

    space = gym.spaces.Box(-10, 10, (LOCO_2P,))
    policy = MaskedMlpPolicy(space, gym.spaces.Discrete(242), lambda _: 3e-4, net_arch=[16])
    first = policy.mlp_extractor.policy_net[0]
    names = list(policy.state_dict())
    inputs = torch.from_numpy(_fresh_loco_inputs(32))
    actions = torch.zeros(32, dtype=torch.long)
    masks = np.ones((32, 242), bool)
    with torch.no_grad():
        before = policy.evaluate_actions(inputs, actions, masks)
    assert fold_policy(policy, LOCO) == folding_for(LOCO, LOCO_2P).folded_width
    extractor = policy.mlp_extractor
    assert isinstance(extractor, FoldedExtractor) and list(policy.state_dict()) == names
    assert isinstance(extractor.policy_net[0], FoldedLinear)
    assert isinstance(extractor.value_net[0], FoldedLinear)
    assert extractor.policy_net[0].weight is first.weight
    assert any(first.weight is p for group in policy.optimizer.param_groups
               for p in group["params"])
    calls = []
    original = InputFolding.fold_rows
    monkeypatch.setattr(InputFolding, "fold_rows",
                        lambda self, *a: calls.append(1) or original(self, *a))
    with torch.no_grad():
        after = policy.evaluate_actions(inputs, actions, masks)
    assert calls == [1]
    for old, new in zip(before, after, strict=True):
        torch.testing.assert_close(new, old, rtol=1e-5, atol=1e-6)
    nets = (extractor.policy_net, extractor.value_net)
    assert fold_first_layers(nets, LOCO, LOCO_2P) == 0  # folded already
    assert fold_first_layers(nets, "log1p", 270) == 0


@pytest.mark.parametrize("env_id", ["loco_v0", "moco_v0"])
def test_a_run_trained_folded_is_the_run_trained_with_full_products(tmp_path: Path, env_id):
    """The same seed, with and without folding: the same games, and weights equal to float32
    rounding after two updates."""
    from loco_envs.policy import load_policy
    from loco_envs.train.ppo import train
    from tests.train.test_train import tiny_args

    transform = {"loco_v0": LOCO, "moco_v0": "log1p+moco_actions"}[env_id]
    policies = []
    for fold in (False, True):
        args = tiny_args(tmp_path / str(fold), env_id, obs_transform=transform, fold_inputs=fold,
                         total_timesteps=128, num_envs=8, num_steps=8, update_epochs=2,
                         final_eval_games=0, eval_every=0, checkpoint_every=0)
        result = train(args)
        policies.append(load_policy(result.checkpoint.with_suffix(".npz"))[0])
    full, folded = policies
    for (w_full, b_full), (w_folded, b_folded) in zip(full.hidden, folded.hidden, strict=True):
        np.testing.assert_allclose(w_folded, w_full, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b_folded, b_full, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(folded.action[0], full.action[0], rtol=1e-4, atol=1e-5)


def test_a_rollout_stored_folded_trains_the_run_of_a_rollout_stored_whole(tmp_path: Path,
                                                                          monkeypatch):
    """The trainer stores a folded policy's rollout folded; the weights after two updates are
    those of the same seed with the rollout stored whole, bit for bit (the policy reads the
    same folded columns either way)."""
    from loco_envs.policy import load_policy
    from loco_envs.train import networks
    from loco_envs.train.ppo import train
    from tests.train.test_train import tiny_args

    stored = []
    original = networks.MaskedRolloutBuffer.fold_observations
    monkeypatch.setattr(networks.MaskedRolloutBuffer, "fold_observations",
                        lambda self, f, **kw: stored.append(f.folded_width)
                        or original(self, f, **kw))
    policies = []
    for name in ("folded", "whole"):
        args = tiny_args(tmp_path / name, "loco_v0", obs_transform=LOCO, total_timesteps=128,
                         num_envs=8, num_steps=8, update_epochs=2, final_eval_games=0,
                         eval_every=0, checkpoint_every=0)
        policies.append(load_policy(train(args).checkpoint.with_suffix(".npz"))[0])
        monkeypatch.setattr(networks, "rollout_folding", lambda policy: None)
    assert stored == [folding_for(LOCO, LOCO_2P).folded_width]  # the first run only
    folded, whole = policies
    for (w_folded, b_folded), (w_whole, b_whole) in zip(folded.hidden, whole.hidden,
                                                        strict=True):
        np.testing.assert_array_equal(w_folded, w_whole)
        np.testing.assert_array_equal(b_folded, b_whole)
    np.testing.assert_array_equal(folded.action[0], whole.action[0])


def _rollouts_with_broken_rows(on_refold: Any = None) -> tuple[Any, Any, Any, list[int]]:
    """A LOCO policy and two buffers of the same 4 x 8 rollout, whose rows 1 and 4 break the
    folding: one stored folded (``on_refold``: its ``fold_observations`` argument), one whole;
    and the inputs and broken rows."""
    import gymnasium as gym

    from loco_envs.train.networks import MaskedMlpPolicy, MaskedRolloutBuffer, fold_policy

    folding = folding_for(LOCO, LOCO_2P)
    space, actions = gym.spaces.Box(-10, 10, (LOCO_2P,)), gym.spaces.Discrete(242)
    policy = MaskedMlpPolicy(space, actions, lambda _: 3e-4, net_arch=[16])
    fold_policy(policy, LOCO)
    inputs, broken_rows = _break(_fresh_loco_inputs(32), folding)
    steps, games = 4, 8
    buffers = [MaskedRolloutBuffer(steps, space, actions, device="cpu", n_envs=games)
               for _ in range(2)]
    buffers[0].fold_observations(folding, on_refold and (lambda f: on_refold(policy, f)))
    rng = np.random.default_rng(3)
    masks = rng.random((32, 242)) < 0.5
    masks[:, 0] = True
    for buffer in buffers:
        for step in range(steps):
            rows = slice(step * games, (step + 1) * games)
            buffer.add(inputs[rows], rng.integers(1, size=(games, 1)), np.zeros(games),
                       np.zeros(games), torch.zeros(games), torch.zeros(games),
                       action_masks=masks[rows])
        buffer.compute_returns_and_advantage(torch.zeros(games), np.zeros(games, bool))
    assert buffers[0].observations.shape == (steps, games, folding.folded_width)
    return policy, buffers, inputs, broken_rows


def _minibatches(buffer: Any) -> list[Any]:
    np.random.seed(0)
    return list(buffer.get(batch_size=8))


def _same_evaluations(policy: Any, ours: Any, theirs: Any, tolerance: float) -> None:
    with torch.no_grad():
        a = policy.evaluate_actions(ours.observations, ours.actions.flatten(), ours.action_masks)
        b = policy.evaluate_actions(theirs.observations, theirs.actions.flatten(),
                                    theirs.action_masks)
    for x, y in zip(a, b, strict=True):
        torch.testing.assert_close(x, y, rtol=tolerance, atol=tolerance)


def test_a_rollout_row_that_breaks_the_folding_reaches_the_policy_whole():
    """Without a policy to refold: a minibatch holding a row the folding does not stand for
    is given whole, that row as it was; the others stay folded. The policy's values,
    log-probabilities and entropies of every minibatch are those of the rollout stored whole."""
    policy, buffers, inputs, broken_rows = _rollouts_with_broken_rows()
    folding = buffers[0].folding
    widths = set()
    for folded, whole in zip(*map(_minibatches, buffers), strict=True):
        width = folded.observations.shape[1]
        widths.add(width)
        holds_broken = any(np.array_equal(whole.observations[i].numpy(), inputs[row])
                           for row in broken_rows for i in range(8))
        assert width == (LOCO_2P if holds_broken else folding.folded_width)
        if width == LOCO_2P:
            torch.testing.assert_close(folded.observations, whole.observations, rtol=0, atol=0)
        _same_evaluations(policy, folded, whole, 0)
    assert widths == {LOCO_2P, folding.folded_width}


def test_rows_that_break_the_folding_refine_it_for_the_update_and_the_policy():
    """With the policy's refold: before the update the folding is refined by the broken rows,
    every minibatch is given folded in it, the policy folds by it, and the policy's numbers
    are those of the rollout stored whole (float32 rounding apart: other groups, other sums)."""
    from loco_envs.train.networks import refold_policy, rollout_folding

    policy, buffers, inputs, broken_rows = _rollouts_with_broken_rows(refold_policy)
    before = buffers[0].folding
    minibatches = _minibatches(buffers[0])
    refined = buffers[0].folding
    assert refined.folded_width > before.folded_width and not buffers[0].whole_rows
    assert rollout_folding(policy) is refined
    assert not refined.fold_rows(inputs)[1].size  # it stands for every row now
    for folded, whole in zip(minibatches, _minibatches(buffers[1]), strict=True):
        assert folded.observations.shape[1] == refined.folded_width
        np.testing.assert_array_equal(refined.expand(folded.observations.numpy()),
                                      whole.observations.numpy())
        _same_evaluations(policy, folded, whole, 1e-5)


def test_a_refined_folding_keeps_what_no_row_told_apart():
    folding = folding_for(LOCO, LOCO_2P)
    inputs = _fresh_loco_inputs(64)
    same = folding.refined(np.delete(inputs, folding.fold_rows(inputs)[1], axis=0)[:8])
    for name in ("keep", "source", "fixed", "values"):
        np.testing.assert_array_equal(getattr(same, name), getattr(folding, name))
    broken, rows = _break(inputs, folding)
    refined = folding.refined(broken[rows])
    assert refined.folded_width == folding.folded_width + 2  # a fixed column, a copy freed
    assert not refined.fold_rows(broken)[1].size
    np.testing.assert_array_equal(refined.expand(refined.fold_rows(broken)[0]), broken)


def test_a_rollout_buffer_refuses_a_folding_of_another_width():
    import gymnasium as gym

    from loco_envs.train.networks import MaskedRolloutBuffer

    buffer = MaskedRolloutBuffer(2, gym.spaces.Box(-1, 1, (270,)), gym.spaces.Discrete(242),
                                 device="cpu", n_envs=2)
    with pytest.raises(ValueError, match="3174-wide inputs for observations shaped"):
        buffer.fold_observations(folding_for(LOCO, LOCO_2P))
    assert buffer.folding is None and buffer.observations.shape == (2, 2, 270)
    elsewhere = MaskedRolloutBuffer(2, gym.spaces.Box(-1, 1, (LOCO_2P,)),
                                    gym.spaces.Discrete(242), device="meta", n_envs=2)
    with pytest.raises(ValueError, match="on the CPU only, not meta"):
        elsewhere.fold_observations(folding_for(LOCO, LOCO_2P))
    assert elsewhere.folding is None


def test_a_clone_fitted_folded_is_the_clone_fitted_with_full_products(tmp_path: Path,
                                                                        monkeypatch):
    from loco_envs.policy import load_policy
    from loco_envs.train import networks
    from loco_envs.train.imitation import BCArgs, run

    def clone(name: str) -> Any:
        args = BCArgs(env_id="loco_v0", num_players=2, teacher="loco/heuristic",
                      opponent_mix={"teacher": 1.0}, games=4, dagger_rounds=0, epochs=2,
                      batch_size=64, net_arch=[16], workers=1, eval_games=0,
                      obs_transform=LOCO, out=str(tmp_path / name))
        return load_policy(run(args, log=lambda *_: None))[0]

    folded = clone("folded")
    monkeypatch.setattr(networks, "fold_first_layers", lambda *_: 0)
    full = clone("full")
    np.testing.assert_allclose(folded.hidden[0][0], full.hidden[0][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(folded.action[0], full.action[0], rtol=1e-4, atol=1e-5)


def test_the_warm_up_runs_each_folding_kernel(monkeypatch):
    """``python -m loco_envs.compiled`` compiles the folding's three kernels (make test runs it
    before the test workers start)."""
    from loco_envs.compiled import __main__ as warming
    from loco_envs.policy import folding as F

    ran = []
    for name in ("_fold_rows", "_fold_weight", "_spread_gradient"):
        kernel = getattr(F, name)
        monkeypatch.setattr(F, name, lambda *a, _k=kernel, _n=name: ran.append(_n) or _k(*a))
    assert warming.warm_folding() >= 0.0
    assert sorted(ran) == ["_fold_rows", "_fold_weight", "_spread_gradient"]


def test_the_warm_up_runs_each_masked_softmax_kernel(monkeypatch):
    from loco_envs.compiled import __main__ as warming
    from loco_envs.policy import masked_softmax as M

    ran = []
    for name in ("_forward", "_backward"):
        kernel = getattr(M, name)
        monkeypatch.setattr(M, name, lambda *a, _k=kernel, _n=name: ran.append(_n) or _k(*a))
    assert warming.warm_masked_softmax() >= 0.0
    assert sorted(ran) == ["_backward", "_backward", "_forward"]
