"""The trainer's masked action distribution (train/networks.py, ``MaskedCategorical``): the
probabilities, log-probabilities, entropy and gradients of sb3-contrib's ``MaskableCategorical``
over the legal logits only, sampled by inverse CDF; and the trainer's ``Tanh``."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.distributions import MaskableCategorical  # noqa: E402

from loco_envs.train.networks import (  # noqa: E402
    ILLEGAL_LOG_PROB,
    MaskedCategorical,
    MaskedCategoricalDistribution,
    MaskedMlpPolicy,
    ShortcutPolicy,
)


def _batch(rows: int, actions: int, scale: float, legal_share: float, seed: int):
    gen = torch.Generator().manual_seed(seed)
    logits = (torch.randn(rows, actions, generator=gen) * scale).requires_grad_()
    legal = torch.rand(rows, actions, generator=gen) < legal_share
    legal[torch.arange(rows), torch.randint(actions, (rows,), generator=gen)] = True
    chosen = torch.multinomial(legal.float(), 1, generator=gen).squeeze(1)
    return logits, legal, chosen


# float32 takes the compiled kernels (loco_envs/policy/masked_softmax.py), float64 torch's ops
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("scale", [0.1, 1.0, 30.0])
@pytest.mark.parametrize("legal_share", [0.02, 0.5, 1.0])
def test_it_gives_sb3_contribs_values_and_gradients(scale, legal_share, dtype):
    logits, legal, chosen = _batch(256, 242, scale, legal_share, seed=int(scale * 10))
    logits = logits.detach().to(dtype).requires_grad_()
    ours, theirs = MaskedCategorical(logits, legal), MaskableCategorical(logits=logits,
                                                                         masks=legal)
    assert torch.allclose(ours.probs, theirs.probs, rtol=1e-5, atol=1e-6)
    assert (ours.probs[~legal] == 0).all()
    assert torch.allclose(ours.log_prob(chosen), theirs.log_prob(chosen), rtol=1e-5, atol=1e-4)
    assert torch.allclose(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-5)
    assert (ours.logits[~legal] == ILLEGAL_LOG_PROB).all()

    weights = torch.randn(242, dtype=dtype)
    losses = {  # PPO's loss, and each output's gradient on its own
        "ppo": lambda d: -d.log_prob(chosen).sum() - 0.01 * d.entropy().sum(),
        "log_prob": lambda d: d.log_prob(chosen).sum(),
        "entropy": lambda d: d.entropy().sum(),
        "probs": lambda d: (d.probs * weights).sum(),
    }
    for name, loss in losses.items():
        ours_grad = torch.autograd.grad(loss(MaskedCategorical(logits, legal)), logits)[0]
        theirs_grad = torch.autograd.grad(loss(MaskableCategorical(logits=logits, masks=legal)),
                                          logits)[0]
        assert torch.allclose(ours_grad[legal], theirs_grad[legal], rtol=1e-4, atol=1e-5), name
        # an illegal action's logit gets no gradient at all (sb3-contrib's gets rounding noise)
        assert (ours_grad[~legal] == 0).all(), name
        assert (theirs_grad[~legal].abs() < 1e-5).all(), name


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_row_without_a_legal_action_or_with_a_nan_logit_has_no_distribution(dtype):
    """NaN in that row alone (sampling it then raises, and a loss over it is NaN)."""
    logits, legal, _ = _batch(4, 12, 1.0, 0.5, seed=7)
    logits = logits.detach().to(dtype)
    legal[1] = False
    logits[2, 3] = torch.nan
    dist = MaskedCategorical(logits, legal)
    for values in (dist.probs, dist.logits, dist.entropy()):
        assert values[1:3].isnan().all() and not values[[0, 3]].isnan().any()


def test_unmasking_restores_the_unmasked_distribution():
    logits, legal, _ = _batch(8, 12, 1.0, 0.3, seed=1)
    ours = MaskedCategorical(logits)
    unmasked = ours.probs.clone()
    assert torch.allclose(unmasked, torch.softmax(logits, dim=-1), atol=1e-6)
    ours.apply_masking(legal)
    assert (ours.probs[~legal] == 0).all()
    ours.apply_masking(None)
    assert ours.masks is None
    assert torch.allclose(ours.probs, unmasked)
    theirs = MaskableCategorical(logits=logits)
    assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-6)
    assert torch.allclose(ours.probs, theirs.probs, atol=1e-7)
    with_inf = logits.detach().clone()
    with_inf[:, 0] = -torch.inf  # torch's categorical: an impossible action adds nothing
    assert torch.allclose(MaskedCategorical(with_inf).entropy(),
                          MaskableCategorical(logits=with_inf).entropy(), atol=1e-6)


@pytest.mark.parametrize("masks_as", ["torch bool", "torch float", "numpy bool", "numpy float"])
def test_every_form_of_masks_gives_the_same_distribution(masks_as):
    """SB3 hands the masks as numpy bools (collection) or float tensors (its rollout buffer)."""
    logits, legal, chosen = _batch(64, 30, 2.0, 0.2, seed=2)
    masks = {"torch bool": legal, "torch float": legal.float(), "numpy bool": legal.numpy(),
             "numpy float": legal.numpy().astype(np.float32)}[masks_as]
    dist, base = MaskedCategorical(logits, masks), MaskedCategorical(logits, legal)
    assert dist.masks.dtype == torch.bool and torch.equal(dist.masks, legal)
    assert torch.equal(dist.probs, base.probs) and torch.equal(dist.log_prob(chosen),
                                                               base.log_prob(chosen))


def test_sampling_draws_legal_actions_at_their_probabilities():
    logits, legal, _ = _batch(4, 9, 1.5, 0.5, seed=3)
    dist = MaskedCategorical(logits, legal)
    torch.manual_seed(5)
    draws = torch.stack([dist.sample() for _ in range(20_000)])  # (20000, 4)
    counts = torch.stack([torch.bincount(draws[:, row], minlength=9) for row in range(4)])
    assert (counts[~legal] == 0).all()
    frequencies = counts / 20_000
    # a frequency of 20,000 draws has a standard error of at most 0.0035: about 4 of them
    assert torch.allclose(frequencies, dist.probs.detach(), atol=0.015)


def test_sampling_is_reproducible_under_torchs_seed_and_keeps_the_batch_shape():
    logits, legal, _ = _batch(32, 242, 3.0, 0.05, seed=4)
    dist = MaskedCategorical(logits, legal)
    torch.manual_seed(11)
    first = dist.sample()
    torch.manual_seed(11)
    assert torch.equal(dist.sample(), first) and first.shape == (32,)
    assert first.dtype == torch.int64 and legal.gather(1, first[:, None]).all()
    assert dist.sample(torch.Size([3])).shape == (3, 32)  # torch.multinomial's path
    assert dist.sample((2, 3)).shape == (2, 3, 32)  # a tuple is a shape too
    assert "MaskedCategorical" in repr(dist)
    single = MaskedCategorical(logits[0], legal[0])
    assert single.sample().shape == () and legal[0, single.sample()]


# torch.rand's two extremes, and 1.0 (u * total rounded up to the total: the clamp below it)
@pytest.mark.parametrize("uniform", [0.0, 1.0 - 2.0**-24, 1.0])
def test_a_draw_at_either_end_of_the_unit_interval_is_still_a_legal_action(monkeypatch, uniform):
    logits, legal, _ = _batch(64, 242, 30.0, 0.02, seed=6)
    legal[:, -1] = False  # the last action illegal everywhere: the draw must not run past
    legal[:, 0] = False
    legal[torch.arange(64), torch.randint(1, 241, (64,),
                                          generator=torch.Generator().manual_seed(7))] = True
    dist = MaskedCategorical(logits, legal)
    monkeypatch.setattr(torch, "rand", lambda shape, **kwargs: torch.full(shape, uniform,
                                                                        **kwargs))
    drawn = dist.sample()
    assert legal.gather(1, drawn[:, None]).all()
    probs = dist.probs.detach()
    if uniform:  # the action where the cumulative probability reaches its top
        cdf = probs.cumsum(1)
        top = cdf[:, -1:]
        assert (cdf.gather(1, drawn[:, None]) == top).all()
        assert (cdf.gather(1, drawn[:, None] - 1) < top).all()
    else:  # the first action of positive probability
        assert torch.equal(drawn, torch.where(probs > 0, torch.arange(242), 242).amin(1))


def test_tanh_is_torchs_tanh_with_its_gradient():
    from torch import nn

    from loco_envs.train.networks import Tanh

    module = Tanh()
    assert isinstance(module, nn.Tanh)
    x = (torch.randn(64, 40) * 3).requires_grad_()
    ours, theirs = module(x), torch.tanh(x)
    assert torch.allclose(ours, theirs, rtol=0, atol=3e-7) and ours.dtype == torch.float32
    grad = torch.randn(64, 40)
    (ours_grad,) = torch.autograd.grad(ours, x, grad)
    (theirs_grad,) = torch.autograd.grad(theirs, x, grad)
    assert torch.allclose(ours_grad, theirs_grad, rtol=0, atol=1e-6)
    double = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(module, (double,))
    strided = torch.randn(20, 30)[:, ::3]  # not contiguous
    assert torch.allclose(module(strided), torch.tanh(strided), atol=3e-7)
    with torch.no_grad():
        assert not module(x).requires_grad
    assert torch.equal(module(torch.tensor([1, -2])), torch.tanh(torch.tensor([1, -2])))


def test_the_trainers_policies_use_it_and_fused_adam():
    from sb3_contrib import MaskablePPO

    from loco_envs.train.networks import Tanh
    from loco_envs.train.pool import OpponentPool
    from loco_envs.train.ppo import Args, policy_network
    from loco_envs.train.selfplay import SelfPlayVecEnv
    from loco_envs.train.torch_policy import from_sb3

    args = Args(env_id="moco_v0", num_players=2, net_arch=[16])
    policy_class, kwargs = policy_network(args)
    assert policy_class is MaskedMlpPolicy and issubclass(ShortcutPolicy, MaskedMlpPolicy)
    venv = SelfPlayVecEnv("moco_v0", 4, OpponentPool({"random": 1.0}, "moco_v0", 1),
                          {"num_players": 2})
    try:
        model = MaskablePPO(policy_class, venv, n_steps=8, batch_size=16, n_epochs=1,
                            seed=0, device="cpu", policy_kwargs=kwargs)
        assert isinstance(model.policy.action_dist, MaskedCategoricalDistribution)
        optimizer = model.policy.optimizer  # SB3's Adam and eps, fused
        assert isinstance(optimizer, torch.optim.Adam)
        assert optimizer.defaults["eps"] == 1e-5 and optimizer.defaults["fused"]
        model.learn(32)
        obs = venv.reset()
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(4), actions].all()
        # its tanh layers are the trainer's Tanh, and the numpy copy reads them as tanh
        activations = [m for m in model.policy.mlp_extractor.modules()
                       if isinstance(m, torch.nn.Tanh)]
        assert activations and all(type(m) is Tanh for m in activations)
        copy = from_sb3(model.policy, args.obs_transform)
        assert copy.activation == "tanh"
        with torch.no_grad():
            latent = model.policy.mlp_extractor.forward_actor(torch.from_numpy(obs))
            logits = model.policy.action_net(latent).numpy()
        assert np.allclose(copy.logits_of_inputs(obs), logits, atol=1e-5)
    finally:
        venv.close()


def test_the_rollout_buffer_gives_sb3_contribs_minibatches_without_copying_the_rollout():
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from loco_envs.train.networks import MaskedRolloutBuffer

    obs_space, action_space = spaces.Box(0, 1, (7,), np.float32), spaces.Discrete(5)
    rng = np.random.default_rng(0)
    steps = [(rng.random((3, 7), dtype=np.float32), rng.integers(5, size=(3, 1)),
              rng.random(3, dtype=np.float32), rng.random(3) < 0.2,
              torch.randn(3), torch.randn(3), rng.random((3, 5)) < 0.5) for _ in range(8)]
    buffers = []
    for cls in (MaskedRolloutBuffer, MaskableRolloutBuffer):
        buffer = cls(8, obs_space, action_space, device="cpu", n_envs=3)
        for obs, action, reward, start, value, log_prob, masks in steps:
            buffer.add(obs, action, reward, start, value, log_prob, action_masks=masks)
        buffer.compute_returns_and_advantage(torch.zeros(3), np.zeros(3, bool))
        buffers.append(buffer)
    stored = buffers[0].observations
    for seed in (1, 2):
        batches = []
        for buffer in buffers:
            np.random.seed(seed)  # SB3 shuffles with numpy's global generator
            batches.append(list(buffer.get(batch_size=6)))
        for ours, theirs in zip(*batches, strict=True):
            for a, b in zip(ours, theirs, strict=True):
                assert torch.equal(a, b)
    assert np.shares_memory(buffers[0].observations, stored)  # viewed flat, not copied
    sample = next(buffers[0].get(batch_size=24))
    before = buffers[0].observations.copy()
    sample.observations.add_(1.0)  # a minibatch is its own array
    assert np.array_equal(buffers[0].observations, before)


def test_the_trainer_builds_its_model_with_that_buffer(tmp_path):
    from sb3_contrib import MaskablePPO

    from loco_envs.train.networks import MaskedRolloutBuffer
    from loco_envs.train.ppo import Args, train

    result = train(Args(env_id="moco_v0", num_players=2, num_envs=4, num_steps=8, batch_size=16,
                        update_epochs=1, total_timesteps=32, net_arch=[8], eval_every=0,
                        final_eval_games=0, checkpoint_every=0, progress_bar=False,
                        runs_dir=str(tmp_path)))
    model = MaskablePPO.load(result.checkpoint, device="cpu")
    assert model.rollout_buffer_class is MaskedRolloutBuffer
