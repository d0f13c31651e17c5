r"""Stan's NUTS as fixed in Stan 2.14.0 (stan-dev/stan#2178, December 2016), in NumPy.

A line-for-line port of ``src/stan/mcmc/hmc/nuts/base_nuts.hpp`` at tag
``v2.14.0``: multinomial NUTS with biased progressive sampling between
subtrees, the diagonal Euclidean metric (``diag_e_metric.hpp``), the leapfrog
(``expl_leapfrog.hpp``) and Stan's warmup (``stepsize_adaptation.hpp``,
``windowed_adaptation.hpp``, ``var_adaptation.hpp``, ``base_hmc::init_stepsize``,
``adapt_diag_e_nuts.hpp``) with the defaults of the services of the time
(``delta = 0.8``, ``gamma = 0.05``, ``kappa = 0.75``, ``t0 = 10``, windows
75 / 25 / 50, ``max_depth = 10``, ``max_deltaH = 1000``, initial step size 1,
random inits uniform on (-2, 2)). Stan is C++; this port is the plain-function
re-creation the catalogue allows for it. ``bug.py`` is the same port of tag
``v2.13.1`` (Stan 2.10.0 to 2.13.1 shipped it); ``diff bug.py fixed.py`` shows
the fix, which changes only ``build_tree`` and the two calls of it.

**The fix.** Each subtree's U-turn criterion must be evaluated at the
subtree's own two ends. 2.13.1 took the subtree's left end ``p_sharp_left``
from the state *before* its first leapfrog step, a point of the trajectory
already built (``p_sharp_left = dtau_dp(z)`` at the top of the recursion).
2.14.0 has ``build_tree`` return ``p_sharp`` at both boundaries of every
subtree and sums ``rho`` separately for the left and right halves.

The model is fixed: the bivariate normal of ``model.py`` (its log density and
gradient are written here again, from ``data.json``'s ``mu``, ``sigma`` and
``rho``). Each chain draws from its own stream,
``np.random.default_rng(random_seed).spawn(chains)[c]``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

MAX_DEPTH = 10
MAX_DELTA_H = 1000.0


class Point:
    """Stan's ``diag_e_point``: position, momentum, potential and its gradient."""

    __slots__ = ("q", "p", "V", "g")

    def __init__(self, q, p, V, g):  # noqa: N803 (Stan's names)
        self.q, self.p, self.V, self.g = q, p, V, g

    def copy(self) -> Point:
        """Return an independent copy (Stan's ``ps_point`` assignment)."""
        return Point(self.q.copy(), self.p.copy(), self.V, self.g.copy())


class Gaussian:
    """The target: ``V(q) = (q - mu)' Sigma^-1 (q - mu) / 2`` and its gradient."""

    def __init__(self, data: Mapping):
        self.mu = np.asarray(data["mu"], dtype=float)
        s1, s2 = (float(s) for s in data["sigma"])
        r = float(data["rho"])
        cov = np.array([[s1 * s1, r * s1 * s2], [r * s1 * s2, s2 * s2]])
        self.precision = np.linalg.inv(cov)

    def potential(self, q: np.ndarray) -> tuple[float, np.ndarray]:
        """Return ``V(q)`` and ``dV/dq``."""
        g = self.precision @ (q - self.mu)
        return 0.5 * float((q - self.mu) @ g), g


class StanNUTS:
    """``adapt_diag_e_nuts``: Stan's NUTS with its windowed warmup, for one chain."""

    def __init__(self, target: Gaussian, rng: np.random.Generator, q: np.ndarray):
        self.target, self.rng = target, rng
        self.m_inv = np.ones(q.size)
        self.z = self.point(q, np.zeros(q.size))
        self.nom_epsilon = 1.0
        self.epsilon = 1.0
        self.n_leapfrog = 0
        self.sum_metro_prob = 0.0
        self.divergent = False

    # --- diag_e_metric and expl_leapfrog -------------------------------------
    def point(self, q: np.ndarray, p: np.ndarray) -> Point:
        """Return the point at ``(q, p)`` with its potential and gradient (``init``)."""
        v, g = self.target.potential(q)
        return Point(q, p, v, g)

    def H(self, z: Point) -> float:  # noqa: N802 (Stan's name)
        """Return the Hamiltonian ``V + p' M^-1 p / 2``."""
        return z.V + 0.5 * float(z.p @ (self.m_inv * z.p))

    def dtau_dp(self, z: Point) -> np.ndarray:
        """Return ``p_sharp = M^-1 p``."""
        return self.m_inv * z.p

    def sample_p(self, z: Point) -> None:
        """Draw the momentum ``p ~ N(0, M)``."""
        z.p = self.rng.standard_normal(z.q.size) / np.sqrt(self.m_inv)

    def evolve(self, z: Point, epsilon: float) -> None:
        """One leapfrog step of size ``epsilon`` (negative: backwards in time)."""
        z.p = z.p - 0.5 * epsilon * z.g
        z.q = z.q + epsilon * self.dtau_dp(z)
        z.V, z.g = self.target.potential(z.q)
        z.p = z.p - 0.5 * epsilon * z.g

    # --- base_hmc -------------------------------------------------------------
    def init_stepsize(self) -> None:
        """Double or halve the nominal step size until one leapfrog crosses acceptance 0.8."""
        z_init = self.z.copy()
        if self.nom_epsilon == 0 or self.nom_epsilon > 1e7:
            return
        self.sample_p(self.z)
        h0 = self.H(self.z)
        self.evolve(self.z, self.nom_epsilon)
        h = self.H(self.z)
        h = np.inf if np.isnan(h) else h
        direction = 1 if h0 - h > np.log(0.8) else -1
        while True:
            self.z = z_init.copy()
            self.sample_p(self.z)
            h0 = self.H(self.z)
            self.evolve(self.z, self.nom_epsilon)
            h = self.H(self.z)
            h = np.inf if np.isnan(h) else h
            delta_h = h0 - h
            if direction == 1 and not delta_h > np.log(0.8):
                break
            if direction == -1 and not delta_h < np.log(0.8):
                break
            self.nom_epsilon = 2.0 * self.nom_epsilon if direction == 1 else 0.5 * self.nom_epsilon
            if self.nom_epsilon > 1e7 or self.nom_epsilon == 0:
                raise RuntimeError("no acceptable step size")
        self.z = z_init

    # --- base_nuts ------------------------------------------------------------
    def transition(self) -> float:
        """One NUTS transition from ``self.z.q``; return the acceptance statistic."""
        self.epsilon = self.nom_epsilon  # sample_stepsize, no jitter
        self.sample_p(self.z)
        self.z = self.point(self.z.q, self.z.p)

        z_plus = self.z.copy()
        z_minus = z_plus.copy()
        z_sample = z_plus.copy()
        z_propose = z_plus.copy()

        p_sharp_plus = self.dtau_dp(self.z)
        p_sharp_dummy = p_sharp_plus.copy()
        p_sharp_minus = p_sharp_plus.copy()
        rho = self.z.p.copy()

        log_sum_weight = 0.0  # log(exp(H0 - H0))
        h0 = self.H(self.z)
        self.n_leapfrog = 0
        self.sum_metro_prob = 1.0  # exp(H0 - H0)

        # Build a trajectory until the NUTS criterion is no longer satisfied
        depth = 0
        self.divergent = False

        while depth < MAX_DEPTH:
            # Build a new subtree in a random direction
            rho_subtree = np.zeros(rho.size)
            if self.rng.uniform() > 0.5:
                self.z = z_plus.copy()
                valid_subtree, z_propose, p_sharp_dummy, p_sharp_plus, log_sum_weight_subtree = (
                    self.build_tree(depth, rho_subtree, h0, 1.0, -np.inf)
                )
                z_plus = self.z.copy()
            else:
                self.z = z_minus.copy()
                valid_subtree, z_propose, p_sharp_dummy, p_sharp_minus, log_sum_weight_subtree = (
                    self.build_tree(depth, rho_subtree, h0, -1.0, -np.inf)
                )
                z_minus = self.z.copy()

            if not valid_subtree:
                break

            # Sample from an accepted subtree
            depth += 1

            if log_sum_weight_subtree > log_sum_weight:
                z_sample = z_propose
            else:
                accept_prob = np.exp(log_sum_weight_subtree - log_sum_weight)
                if self.rng.uniform() < accept_prob:
                    z_sample = z_propose

            log_sum_weight = np.logaddexp(log_sum_weight, log_sum_weight_subtree)

            # Break when NUTS criterion is no longer satisfied
            rho += rho_subtree
            if not self.compute_criterion(p_sharp_minus, p_sharp_plus, rho):
                break

        # Compute average acceptance probabilty across entire trajectory,
        # even over subtrees that may have been rejected
        accept_prob = self.sum_metro_prob / (self.n_leapfrog + 1)

        self.z = z_sample.copy()
        return accept_prob

    @staticmethod
    def compute_criterion(p_sharp_minus, p_sharp_plus, rho) -> bool:
        """Return whether the trajectory has not yet turned back on itself."""
        return p_sharp_plus @ rho > 0 and p_sharp_minus @ rho > 0

    def build_tree(self, depth, rho, h0, sign, log_sum_weight):
        """Build a subtree of ``2**depth`` leapfrog steps from ``self.z``.

        ``rho`` is added to in place. Returns ``(valid, z_propose, p_sharp_left,
        p_sharp_right, log_sum_weight)``: p_sharp at the subtree's first and last
        points.
        """
        # Base case
        if depth == 0:
            self.evolve(self.z, sign * self.epsilon)
            self.n_leapfrog += 1

            h = self.H(self.z)
            if np.isnan(h):
                h = np.inf

            if (h - h0) > MAX_DELTA_H:
                self.divergent = True

            log_sum_weight = np.logaddexp(log_sum_weight, h0 - h)

            if h0 - h > 0:
                self.sum_metro_prob += 1
            else:
                self.sum_metro_prob += np.exp(h0 - h)

            z_propose = self.z.copy()
            rho += self.z.p

            p_sharp_left = self.dtau_dp(self.z)  # FIX: the subtree's own ends
            p_sharp_right = p_sharp_left

            return not self.divergent, z_propose, p_sharp_left, p_sharp_right, log_sum_weight
        # General recursion

        # Build the left subtree
        rho_left = np.zeros(rho.size)  # FIX: each half sums its own rho
        valid_left, z_propose, p_sharp_left, _, log_sum_weight_left = self.build_tree(
            depth - 1, rho_left, h0, sign, -np.inf
        )

        if not valid_left:
            return False, z_propose, None, None, log_sum_weight

        # Build the right subtree
        rho_right = np.zeros(rho.size)
        valid_right, z_propose_right, _, p_sharp_right, log_sum_weight_right = self.build_tree(
            depth - 1, rho_right, h0, sign, -np.inf
        )

        if not valid_right:
            return False, z_propose, None, None, log_sum_weight

        # Multinomial sample from right subtree
        log_sum_weight_subtree = np.logaddexp(log_sum_weight_left, log_sum_weight_right)
        log_sum_weight = np.logaddexp(log_sum_weight, log_sum_weight_subtree)

        if log_sum_weight_right > log_sum_weight_subtree:
            z_propose = z_propose_right
        else:
            accept_prob = np.exp(log_sum_weight_right - log_sum_weight_subtree)
            if self.rng.uniform() < accept_prob:
                z_propose = z_propose_right

        rho_subtree = rho_left + rho_right
        rho += rho_subtree

        return (
            self.compute_criterion(p_sharp_left, p_sharp_right, rho_subtree),
            z_propose,
            p_sharp_left,
            p_sharp_right,
            log_sum_weight,
        )


class StepsizeAdaptation:
    """Stan's dual averaging of the log step size (``stepsize_adaptation.hpp``)."""

    def __init__(self, mu: float, delta: float = 0.8, gamma: float = 0.05, kappa: float = 0.75,
                 t0: float = 10.0):  # fmt: skip
        self.mu, self.delta, self.gamma, self.kappa, self.t0 = mu, delta, gamma, kappa, t0
        self.restart()

    def restart(self) -> None:
        """Forget the averages."""
        self.counter = 0.0
        self.s_bar = 0.0
        self.x_bar = 0.0

    def learn_stepsize(self, adapt_stat: float) -> float:
        """Update with one acceptance statistic; return the next step size."""
        self.counter += 1
        adapt_stat = min(adapt_stat, 1.0)
        eta = 1.0 / (self.counter + self.t0)
        self.s_bar = (1.0 - eta) * self.s_bar + eta * (self.delta - adapt_stat)
        x = self.mu - self.s_bar * np.sqrt(self.counter) / self.gamma
        x_eta = self.counter ** (-self.kappa)
        self.x_bar = (1.0 - x_eta) * self.x_bar + x_eta * x
        return float(np.exp(x))


class VarAdaptation:
    """Stan's windowed variance adaptation (``windowed_adaptation.hpp``, ``var_adaptation.hpp``)."""

    def __init__(self, num_warmup: int, init_buffer: int = 75, term_buffer: int = 50,
                 base_window: int = 25):  # fmt: skip
        self.num_warmup = self.init_buffer = self.term_buffer = self.base_window = 0
        self.restart()
        if num_warmup < 20:  # no variance estimation
            return
        if init_buffer + base_window + term_buffer > num_warmup:
            # Stan 2.13/2.14 set the 15%/75%/10% partition here without restart()
            self.num_warmup = num_warmup
            self.init_buffer = int(0.15 * num_warmup)
            self.term_buffer = int(0.10 * num_warmup)
            self.base_window = num_warmup - (self.init_buffer + self.term_buffer)
            return
        self.num_warmup = num_warmup
        self.init_buffer, self.term_buffer, self.base_window = init_buffer, term_buffer, base_window
        self.restart()

    def restart(self) -> None:
        """Start the windows over; forget the estimator."""
        self.window_counter = 0
        self.window_size = self.base_window
        self.next_window = self.init_buffer + self.window_size - 1
        self.n, self.m, self.m2 = 0, 0.0, 0.0

    def adaptation_window(self) -> bool:
        """Return whether this warmup iteration feeds the variance estimate."""
        return (
            self.window_counter >= self.init_buffer
            and self.window_counter < self.num_warmup - self.term_buffer
            and self.window_counter != self.num_warmup
        )

    def end_adaptation_window(self) -> bool:
        """Return whether a window closes at this warmup iteration."""
        return self.window_counter == self.next_window and self.window_counter != self.num_warmup

    def compute_next_window(self) -> None:
        """Double the window, stretching the last one to the terminal buffer."""
        if self.next_window == self.num_warmup - self.term_buffer - 1:
            return
        self.window_size *= 2
        self.next_window = self.window_counter + self.window_size
        if self.next_window == self.num_warmup - self.term_buffer - 1:
            return
        if self.next_window + 2 * self.window_size >= self.num_warmup - self.term_buffer:
            self.next_window = self.num_warmup - self.term_buffer - 1

    def learn_variance(self, q: np.ndarray) -> np.ndarray | None:
        """Add ``q`` (Welford); at a window's end return the regularised variance."""
        if self.adaptation_window():
            self.n += 1
            delta = q - self.m
            self.m = self.m + delta / self.n
            self.m2 = self.m2 + (q - self.m) * delta
        if self.end_adaptation_window():
            self.compute_next_window()
            var = self.m2 / (self.n - 1.0)
            n = float(self.n)
            var = (n / (n + 5.0)) * var + 1e-3 * (5.0 / (n + 5.0)) * np.ones(q.size)
            self.n, self.m, self.m2 = 0, 0.0, 0.0
            self.window_counter += 1
            return var
        self.window_counter += 1
        return None


def run_chain(data: Mapping, draws: int, tune: int, rng: np.random.Generator) -> np.ndarray:
    """Warm up for ``tune`` iterations as Stan's services do, then keep ``draws``; (draws, 2)."""
    target = Gaussian(data)
    sampler = StanNUTS(target, rng, rng.uniform(-2.0, 2.0, size=target.mu.size))
    stepsize = StepsizeAdaptation(mu=np.log(10 * sampler.nom_epsilon))
    variance = VarAdaptation(tune)
    sampler.init_stepsize()
    for _ in range(tune):
        accept_stat = sampler.transition()
        sampler.nom_epsilon = stepsize.learn_stepsize(accept_stat)
        var = variance.learn_variance(sampler.z.q)
        if var is not None:
            sampler.m_inv = var
            sampler.init_stepsize()
            stepsize.mu = np.log(10 * sampler.nom_epsilon)
            stepsize.restart()
    sampler.nom_epsilon = float(np.exp(stepsize.x_bar))  # disengage_adaptation
    out = np.empty((draws, target.mu.size))
    for t in range(draws):
        sampler.transition()
        out[t] = sampler.z.q
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the bivariate normal with Stan 2.14.0's NUTS (the fix).

    Parameters
    ----------
    data : mapping
        ``mu`` (2,), ``sigma`` (2,), ``rho``.
    draws, tune, chains : int
        Kept and warmup iterations per chain, and the number of chains.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``, spawned into one stream per chain.

    Returns
    -------
    dict
        ``z``, shape (chains, draws, 2).
    """
    streams = np.random.default_rng(random_seed).spawn(chains)
    return {"z": np.stack([run_chain(data, draws, tune, rng) for rng in streams])}
