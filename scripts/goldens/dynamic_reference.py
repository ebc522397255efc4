#!/usr/bin/python3
"""
Bit-exact NumPy reference of PyTorch 1.13 (Debian 1.13.1+dfsg, libdnnl2 2.6.3,
ideep git 77d662b) dynamic quantization of nn.Linear (and a check of LSTM/GRU),
for the 'onednn' and 'qnnpack' quantized engines.

Run:  /usr/bin/python3 scripts/goldens/dynamic_reference.py
      (add --quick for a smaller sweep, --threads N to set torch threads)

Everything that matters for bit-exactness is spelled out in the functions
  quantize_weight, choose_qparams, linear_onednn, linear_qnnpack,
  lstm_ref, gru_ref
See docs/PyTorchDynamicNumerics.md for the prose version.
"""
import os, sys, math, warnings, itertools, time
import numpy as np

f32 = np.float32
f64 = np.float64
INT32_MIN = -2**31


# --------------------------------------------------------------------------
# 1. Weight quantization (quantize_dynamic -> from_float -> _quantize_weight)
#    default_dynamic_qconfig.weight   = MinMaxObserver(qint8, per_tensor_symmetric)
#    per_channel_dynamic_qconfig.weight = PerChannelMinMaxObserver(qint8,
#                                          per_channel_symmetric, ch_axis=0)
#    quant_min=-128, quant_max=127 (reduce_range=False), eps=FLT_EPSILON
# --------------------------------------------------------------------------
def quantize_weight(W, per_channel):
    """W: float32 [N,K].  Returns (wq int8 [N,K], wscale float32 [N]).
    All arithmetic in float32 exactly as the torch observer does it."""
    W = np.asarray(W, f32)
    N = W.shape[0]
    if per_channel:
        mn, mx = W.min(axis=1), W.max(axis=1)
    else:
        mn, mx = np.full(N, W.min(), f32), np.full(N, W.max(), f32)
    mn = np.minimum(mn, f32(0))
    mx = np.maximum(mx, f32(0))
    amax = np.maximum(-mn, mx).astype(f32)
    scale = (amax / f32(127.5)).astype(f32)          # (quant_max-quant_min)/2 = 127.5
    scale = np.maximum(scale, np.finfo(f32).eps).astype(f32)
    # torch.quantize_per_tensor / per_channel (non-FBGEMM build: quantize_val):
    #   inv = 1.0f / (float)scale ; q = zp + nearbyint(w * inv) ; clamp to [-128,127]
    inv = (f32(1) / scale).astype(f32)
    q = np.rint((W * inv[:, None]).astype(f32))
    wq = np.clip(q, -128, 127).astype(np.int8)
    return wq, scale


# --------------------------------------------------------------------------
# 2. Activation qparams: quant_utils::ChooseQuantizationParams
#    (QuantUtils.h; preserve_sparsity=false, force_scale_power_of_two=false)
#    NOTE: TensorQuantizationParams::scale is a DOUBLE (not rounded to float).
# --------------------------------------------------------------------------
SMALL_SCALE_THRESHOLD = f32(6.1e-5)


def _c_int32_from_double(v):
    """static_cast<int32_t>(nearbyint(v)) on x86 (cvttsd2si): NaN/overflow -> INT32_MIN"""
    if not np.isfinite(v) or v >= 2**31 or v < -2**31:
        return INT32_MIN
    return int(np.rint(v))


def choose_qparams(xmin, xmax, qmin=0, qmax=255, reduce_range=False):
    xmin = f32(xmin)
    xmax = f32(xmax)
    if not (xmin <= xmax):      # NaN anywhere in the input ends up here
        raise RuntimeError("In ChooseQuantizationParams, min should be less than or equal to max")
    if reduce_range:
        qmin = int(qmin / 2)    # C++ integer division (qmin=0 here)
        qmax = int(qmax / 2)    # 255 -> 127
    xmin = min(xmin, f32(0))
    xmax = max(xmax, f32(0))
    with np.errstate(all='ignore'):
        scale = (float(xmax) - float(xmin)) / (qmax - qmin)          # double
        if f32(scale) == 0 or np.isinf(f32(1) / f32(scale)):
            scale = 0.1
        if scale < float(SMALL_SCALE_THRESHOLD):
            org = f32(scale)
            scale = float(SMALL_SCALE_THRESHOLD)
            if xmin == 0:
                xmax = f32(SMALL_SCALE_THRESHOLD * f32(qmax - qmin))
            elif xmax == 0:
                xmin = f32(-SMALL_SCALE_THRESHOLD * f32(qmax - qmin))
            else:
                amp = f32(SMALL_SCALE_THRESHOLD / org)
                xmin = f32(xmin * amp)
                xmax = f32(xmax * amp)
        zp_from_min = qmin - float(xmin) / scale
        zp_from_max = qmax - float(xmax) / scale
        err_min = abs(qmin) - abs(float(xmin) / scale)
        err_max = abs(qmax) - abs(float(xmax) / scale)
        z0 = zp_from_min if err_min < err_max else zp_from_max
    if z0 < qmin:
        zp = qmin
    elif z0 > qmax:
        zp = qmax
    else:
        zp = _c_int32_from_double(z0)      # nearbyint = round-half-even
    return float(scale), int(zp)


def _minmax(x):
    """Both engines: min/max over the WHOLE input tensor; 0,0 if empty."""
    if x.size == 0:
        return f32(0), f32(0)
    if np.isnan(x).any():          # aten min()/max()/aminmax() propagate NaN
        return f32(np.nan), f32(np.nan)
    return x.min(), x.max()


def _int_matmul(q_minus_zp, wq):
    """exact int32 accumulation sum_k (xq-zp)*wq  (float64 BLAS is exact here)"""
    acc = q_minus_zp.astype(f64) @ wq.astype(f64).T
    assert np.all(np.abs(acc) < 2**31)
    return acc.astype(np.int64)


# --------------------------------------------------------------------------
# 3a. ONEDNN engine: PackedLinearWeightsOnednn::apply_dynamic_impl +
#     ideep::matmul_forward::compute_v2 (static prepare path) + oneDNN 2.6.3
# --------------------------------------------------------------------------
def _input_qparams(x, wq, reduce_range):
    """Both engines: x as [M, K] and the qparams of its min and max."""
    x = np.ascontiguousarray(x, f32)
    if x.ndim < 2:
        raise RuntimeError("The dimension of input tensor should be larger than or equal to 2")
    x2 = x.reshape(-1, x.shape[-1])
    xmin, xmax = _minmax(x2)
    scale, zp = choose_qparams(xmin, xmax, 0, 255, reduce_range)
    return x, x2, wq.shape[0], scale, zp


def linear_onednn(x, wq, wscale, bias, reduce_range=True, return_qparams=False):
    x, x2, N, scale, zp = _input_qparams(x, wq, reduce_range)
    if x2.shape[0] == 0:
        # returns the 2-D [0,N] tensor *without* reshaping back (quirk)
        return np.zeros((0, N), f32)
    if zp == INT32_MIN:
        raise RuntimeError("could not execute a primitive")   # e.g. +inf in input
    with np.errstate(all='ignore'):
        xinv = f32(1.0 / scale)                              # ideep src scale (double div -> float)
        winv = (1.0 / wscale.astype(f64)).astype(f32)        # prepack: 1.0/q_scale (double) -> float
        # src reorder f32 -> u8 : vmulps, vaddps(zp), saturate [0,255] (NaN -> 0), cvtps2dq (RNE)
        t = ((x2 * xinv).astype(f32) + f32(zp)).astype(f32)
        t = np.where(np.isnan(t), f32(0), t)
        xq = np.rint(np.clip(t, 0, 255))
        # NB: no reduce_range clamp to 127 here: values are in [0,128] for
        # finite inputs (127.5 rounds to 128 where zp was rounded up).
        acc = _int_matmul(xq - zp, wq)                       # exact int32
        accf = acc.astype(np.int32).astype(f32)              # cvtdq2ps (RNE)
        bs = (xinv * winv).astype(f32)                       # ideep bias scale   (float)
        osc = (f32(1) / bs).astype(f32)                      # ideep output scale (float)
        if bias is None:
            y = (accf * osc).astype(f32)
        else:
            bp = (np.asarray(bias, f32) * bs).astype(f32)    # bias reorder with scale bs
            y = ((accf + bp).astype(f32) * osc).astype(f32)  # oneDNN v2 int8: (acc+bias)*scale
    y = y.reshape(x.shape[:-1] + (N,))
    return (y, (scale, zp)) if return_qparams else y


# --------------------------------------------------------------------------
# 3b. QNNPACK engine: PackedLinearWeightsQnnp::apply_dynamic_impl +
#     pytorch_q8gemm_dq_ukernel_4x4c2__sse2
# --------------------------------------------------------------------------
def linear_qnnpack(x, wq, wscale, bias, reduce_range=True, return_qparams=False):
    # reduce_range is IGNORED by qnnpack (it only warns)
    x, x2, N, scale, zp = _input_qparams(x, wq, False)
    with np.errstate(all='ignore'):
        mult = (wscale.astype(f32) * f32(scale)).astype(f32)    # (w_scale * (float)x_scale) * 1.f
        if not np.all((mult > 0) & np.isfinite(mult) & (mult >= np.finfo(f32).tiny)):
            raise RuntimeError("failed to create op with requantization scale: requantization "
                               "scale must be finite and positive")
        if x2.shape[0] == 0:
            return np.zeros(x.shape[:-1] + (N,), f32)
        # at::quantize_per_tensor -> quantize_val: inv=1.0f/(float)scale; zp + nearbyint(x*inv); clamp
        inv = f32(f32(1) / f32(scale))
        r = np.rint((x2 * inv).astype(f32))
        r = np.where(np.isnan(r), -2.0**63, r)       # (int64)NaN = INT64_MIN -> clamps to 0
        xq = np.clip(zp + r, 0, 255)
        acc = _int_matmul(xq - zp, wq)
        accf = acc.astype(np.int32).astype(f32)      # _mm_cvtepi32_ps
        b = np.zeros(N, f32) if bias is None else np.asarray(bias, f32)
        y = ((mult * accf).astype(f32) + b).astype(f32)   # _mm_mul_ps then _mm_add_ps (no FMA)
    y = y.reshape(x.shape[:-1] + (N,))
    return (y, (scale, zp)) if return_qparams else y


LINEAR = {'onednn': linear_onednn, 'qnnpack': linear_qnnpack}


# --------------------------------------------------------------------------
# 3c. Emulation of the ONEDNN *stateful* behaviour (primitive caches).
#     PackedLinearWeightsOnednn keeps a per-module cache initialised on the
#     first call (key: 2-D input dims [M,K] + at::get_num_threads()).
#       * same dims/threads as the first call -> ideep "dynamic" primitive
#         with runtime scales & zero point  -> always the fresh formula.
#       * other dims -> ideep::matmul_forward::compute_v2 (static prepare):
#         primitive_desc fetched from ideep's thread-local LRU cache
#         (capacity 1024, env LRU_CACHE_CAPACITY) whose key encodes
#         src/weights/bias/dst descs, post-ops, OUTPUT SCALES and
#         omp_get_max_threads() but NOT the src zero point.  On a hit the
#         matmul subtracts the zero point baked in when the entry was
#         created, while the u8 quantisation of x uses the current zp.
#         (Only possible when the f32 output scales 1/(xinv*winv) are
#         bit-identical, e.g. x-scale clamped to 6.1e-5, scale 0.1 for
#         all-zero input, or two inputs with equal max-min.)
# --------------------------------------------------------------------------
import collections
_IDEEP_PD_CACHE = collections.OrderedDict()
IDEEP_CACHE_CAPACITY = int(os.environ.get('LRU_CACHE_CAPACITY', '1024'))


class OnednnLinearState:
    def __init__(self, wq, wscale, bias, threads=1, relu=False):
        self.wq, self.wscale, self.bias = wq, wscale, bias
        self.threads, self.relu = threads, relu
        self.first_key = None

    def __call__(self, x, reduce_range=True):
        x = np.ascontiguousarray(x, f32)
        K = x.shape[-1]
        M = int(np.prod(x.shape[:-1]))
        y, (scale, zp) = linear_onednn(x, self.wq, self.wscale, self.bias, reduce_range, True) \
            if M > 0 else (linear_onednn(x, self.wq, self.wscale, self.bias, reduce_range), (0.1, 0))
        if M == 0:
            return y                      # early return, cache untouched
        key = (M, K, self.threads)
        if self.first_key is None:
            self.first_key = key          # c10::call_once
        if key == self.first_key:
            return y                      # hit_dynamic -> runtime zp (fresh)
        xinv = f32(1.0 / scale)
        winv = (1.0 / self.wscale.astype(f64)).astype(f32)
        osc = (f32(1) / (xinv * winv).astype(f32)).astype(f32)
        scale_vec = osc if len(set(self.wscale.tolist())) > 1 else osc[:1]
        gkey = (M, K, self.wq.shape[0], self.bias is not None, self.relu,
                scale_vec.view(np.uint32).tobytes(), self.threads)
        if gkey in _IDEEP_PD_CACHE:
            _IDEEP_PD_CACHE.move_to_end(gkey)
            zp_mm = _IDEEP_PD_CACHE[gkey]
        else:
            _IDEEP_PD_CACHE[gkey] = zp_mm = zp
            while len(_IDEEP_PD_CACHE) > IDEEP_CACHE_CAPACITY:
                _IDEEP_PD_CACHE.popitem(last=False)
        if zp_mm == zp:
            return y
        # stale matmul zero point: acc = sum (xq - zp_mm) * w
        x2 = x.reshape(-1, K)
        t = ((x2 * xinv).astype(f32) + f32(zp)).astype(f32)
        t = np.where(np.isnan(t), f32(0), t)
        xq = np.rint(np.clip(t, 0, 255))
        accf = _int_matmul(xq - zp_mm, self.wq).astype(np.int32).astype(f32)
        bs = (xinv * winv).astype(f32)
        if self.bias is None:
            y2 = (accf * osc).astype(f32)
        else:
            y2 = ((accf + (np.asarray(self.bias, f32) * bs).astype(f32)).astype(f32) * osc).astype(f32)
        return y2.reshape(x.shape[:-1] + (self.wq.shape[0],))


# --------------------------------------------------------------------------
# 4. LSTM / GRU (aten/src/ATen/native/RNN.cpp, QuantizedCellParamsDynamic)
#    Each linear is the dynamic linear above (bias packed inside),
#    reduce_range=True is passed (onednn honours it, qnnpack ignores it).
#    On CPU the input projection of a whole layer is computed ONCE over the
#    full [T,B,I] tensor (one set of activation qparams for the whole
#    sequence); the hidden projection is re-quantized at every time step.
#    Elementwise math is ATen float32: sigmoid_/tanh_ (ATen vectorised
#    kernels, here called through torch on identical tensor layouts), mul,
#    add (separately rounded, no FMA).
# --------------------------------------------------------------------------
def _torch_inplace(fn, gates_np, chunks, idx):
    import torch
    g = torch.from_numpy(gates_np)
    ch = g.chunk(chunks, 1)
    for i, f in zip(idx, fn):
        getattr(ch[i], f)()
    return g.numpy()


def lstm_ref(engine, x, layers, h0, c0):
    """x [T,B,I]; layers: list of dict(wih=(wq,ws,b), whh=(wq,ws,b)) (unidirectional)."""
    lin = LINEAR[engine]
    inp = x
    hN, cN = [], []
    for l, P in enumerate(layers):
        ih_all = lin(inp, *P['wih'])                       # [T,B,4H]  one qparam set
        h, c = h0[l], c0[l]
        outs = []
        for t in range(inp.shape[0]):
            gates = (lin(h, *P['whh']) + ih_all[t]).astype(f32)   # linear_hh(hx).add_(ih)
            H = gates.shape[1] // 4
            gates = _torch_inplace(['sigmoid_', 'sigmoid_', 'tanh_', 'sigmoid_'], gates, 4, [0, 1, 2, 3])
            i, f, g, o = (gates[:, k * H:(k + 1) * H] for k in range(4))
            c = ((f * c).astype(f32) + (i * g).astype(f32)).astype(f32)
            import torch
            h = (o * torch.tanh(torch.from_numpy(np.ascontiguousarray(c))).numpy()).astype(f32)
            outs.append(h)
        inp = np.stack(outs, 0)
        hN.append(h); cN.append(c)
    return inp, np.stack(hN), np.stack(cN)


def gru_ref(engine, x, layers, h0):
    import torch
    lin = LINEAR[engine]
    inp = x
    hN = []
    for l, P in enumerate(layers):
        ih_all = lin(inp, *P['wih'])
        h = h0[l]
        outs = []
        for t in range(inp.shape[0]):
            ig = ih_all[t]
            hg = lin(h, *P['whh'])
            H = hg.shape[1] // 3
            hg = np.ascontiguousarray(hg)
            # r = (hg0 + ig0).sigmoid_(), z = (hg1 + ig1).sigmoid_()  (in place in hg)
            hg[:, :2 * H] = (hg[:, :2 * H] + ig[:, :2 * H]).astype(f32)
            hg = _torch_inplace(['sigmoid_', 'sigmoid_'], hg, 3, [0, 1])
            r, z = hg[:, :H], hg[:, H:2 * H]
            n = (ig[:, 2 * H:] + (hg[:, 2 * H:] * r).astype(f32)).astype(f32)
            n = torch.tanh(torch.from_numpy(np.ascontiguousarray(n))).numpy()
            h = ((((h - n).astype(f32)) * z).astype(f32) + n).astype(f32)
            outs.append(h)
        inp = np.stack(outs, 0)
        hN.append(h)
    return inp, np.stack(hN)


# ==========================================================================
# Test harness against torch
# ==========================================================================
def _bits(a):
    return np.ascontiguousarray(a, f32).view(np.uint32).astype(np.int64)


def _ulps(a, b):
    """ulp distance between float32 arrays (monotone int mapping)."""
    def key(v):
        i = np.ascontiguousarray(v, f32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7fffffff), i)
    return np.abs(key(a) - key(b))


def make_input(kind, M, K, rng):
    s = f32(10.0 ** rng.uniform(-3, 3))
    if kind == 'normal':
        return (rng.standard_normal((M, K)) * s).astype(f32)
    if kind == 'positive':
        return (np.abs(rng.standard_normal((M, K))) * s).astype(f32)
    if kind == 'negative':
        return (-np.abs(rng.standard_normal((M, K))) * s).astype(f32)
    if kind == 'offset':      # narrow range far from 0 (e.g. post-sigmoid-like)
        return (f32(rng.uniform(1, 100)) + rng.uniform(0, 1e-2, (M, K))).astype(f32)
    if kind == 'tiny':        # range << 255*6.1e-5 -> SMALL_SCALE_THRESHOLD branch
        return (rng.standard_normal((M, K)) * 10.0 ** rng.uniform(-9, -4)).astype(f32)
    if kind == 'large':
        return (rng.standard_normal((M, K)) * 10.0 ** rng.uniform(10, 30)).astype(f32)
    if kind == 'outlier':
        x = (rng.standard_normal((M, K)) * s).astype(f32)
        x.flat[rng.integers(x.size)] = s * 1000
        return x
    if kind == 'skewed':      # mostly positive with small negatives
        return (rng.uniform(-0.05, 1, (M, K)) * s).astype(f32)
    if kind == 'zeros':
        return np.zeros((M, K), f32)
    if kind == 'const':
        return np.full((M, K), f32(rng.uniform(-3, 3)), f32)
    raise ValueError(kind)


KINDS = ['normal', 'positive', 'negative', 'offset', 'tiny', 'large', 'outlier',
         'skewed', 'zeros', 'const']


def run_linear_sweep(quick=False):
    import torch
    from torch.ao.quantization import quantize_dynamic, per_channel_dynamic_qconfig
    rng = np.random.default_rng(12345)
    Ms = [1, 4, 16, 64]
    KNs = [8, 64, 768]
    summary = {}
    qp_checked = [0, 0]
    for eng in ['onednn', 'qnnpack']:
        torch.backends.quantized.engine = eng
        for pc in [False, True]:
            for K, N in itertools.product(KNs, KNs):
                has_bias = rng.random() > 0.15
                lin = torch.nn.Linear(K, N, bias=has_bias)
                with torch.no_grad():
                    lin.weight.copy_(torch.from_numpy(
                        (rng.standard_normal((N, K)) * 10.0 ** rng.uniform(-3, 1)).astype(f32)))
                    if has_bias:
                        lin.bias.copy_(torch.from_numpy(
                            (rng.standard_normal(N) * 10.0 ** rng.uniform(-2, 1)).astype(f32)))
                model = torch.nn.Sequential(lin)
                spec = {torch.nn.Linear: per_channel_dynamic_qconfig} if pc else {torch.nn.Linear}
                qm = quantize_dynamic(model, spec, dtype=torch.qint8)
                W = lin.weight.detach().numpy()
                b = lin.bias.detach().numpy() if has_bias else None
                wq, ws = quantize_weight(W, pc)
                state = OnednnLinearState(wq, ws, b, torch.get_num_threads()) if eng == 'onednn' else None
                # check weight quantization against torch
                tw, _ = qm[0]._packed_params._weight_bias()
                assert np.array_equal(tw.int_repr().numpy(), wq), "weight int mismatch"
                tws = (tw.q_per_channel_scales().numpy() if pc else np.full(N, tw.q_scale()))
                assert np.array_equal(tws, ws.astype(f64)), "weight scale mismatch"
                for M in Ms:
                    kinds = KINDS if not quick else KINDS[::3]
                    for kind in kinds:
                        x = make_input(kind, M, K, rng)
                        with torch.no_grad():
                            yt = qm(torch.from_numpy(x)).numpy()
                        yr, (sc, zp) = LINEAR[eng](x, wq, ws, b, True, return_qparams=True)
                        # activation qparams as torch computes them
                        ts, tz = torch._choose_qparams_per_tensor(torch.from_numpy(x), eng == 'onednn')
                        qp_checked[1] += 1
                        qp_checked[0] += int(ts == sc and tz == zp)
                        d = _ulps(yr, yt)
                        key = (eng, 'per_channel' if pc else 'per_tensor', M, K, N)
                        st = summary.setdefault(key, [0, 0, 0, 0, 0, 0, 0])
                        # cases_exact, cases, elems_exact, elems, max_ulp, stateful_cases_exact, stale_cases
                        ys = state(x) if state is not None else yr
                        st[5] += int(np.array_equal(_bits(ys), _bits(yt)))
                        st[6] += int(not np.array_equal(_bits(ys), _bits(yr)))
                        st[0] += int(np.array_equal(_bits(yr), _bits(yt)))
                        st[1] += 1
                        st[2] += int((d == 0).sum())
                        st[3] += d.size
                        st[4] = max(st[4], int(d.max()) if d.size else 0)
    return summary, qp_checked


def run_adversarial_onednn(n_cases=200):
    """Inputs built so that   rne(fl(fl(x*inv)+zp))  !=  rne(fma(x,inv,zp))  or  != rne(x*inv)+zp.
    Distinguishes the exact activation-quantization formula of the oneDNN reorder."""
    import torch
    torch.backends.quantized.engine = 'onednn'
    rng = np.random.default_rng(99)
    res = {'cases': 0, 'exact': 0, 'crafted_elems': 0}
    for _ in range(n_cases):
        M = int(rng.choice([1, 3, 16, 64]))
        K = 64
        lo = -f32(rng.uniform(0.1, 5))
        hi = f32(rng.uniform(0.1, 5))
        sc, zp = choose_qparams(lo, hi, 0, 255, True)
        xinv = f32(1.0 / sc)
        cand = rng.uniform(lo, hi, 100000).astype(f32)
        tA = np.rint(((cand * xinv).astype(f32) + f32(zp)).astype(f32))
        tC = np.rint((cand.astype(f64) * float(xinv) + zp).astype(f32))
        tB = np.rint((cand * xinv).astype(f32)) + zp
        sel = cand[(tA != tC) | (tA != tB)]
        if sel.size == 0:
            continue
        x = rng.uniform(lo, hi, (M, K)).astype(f32)
        x[0, 0], x[-1, -1] = lo, hi
        flat = x.reshape(-1)
        idx = rng.choice(np.arange(1, flat.size - 1), size=min(sel.size, flat.size - 2), replace=False)
        flat[idx] = sel[:idx.size]
        N = 16
        wq = rng.integers(-128, 128, (N, K)).astype(np.int8)
        ws = (rng.uniform(1e-3, 1e-2, N)).astype(f32)
        wt = torch._make_per_channel_quantized_tensor(torch.from_numpy(wq), torch.from_numpy(ws.astype(f64)),
                                                      torch.zeros(N, dtype=torch.long), 0)
        b = rng.standard_normal(N).astype(f32)
        p = torch.ops.quantized.linear_prepack(wt, torch.from_numpy(b))
        if res['cases'] % 2:   # warm-up with another shape -> measured call takes the static path
            torch.ops.quantized.linear_dynamic(torch.from_numpy(x[:, :K]).repeat(2, 1), p, True)
        yt = torch.ops.quantized.linear_dynamic(torch.from_numpy(x), p, True).numpy()
        yr = linear_onednn(x, wq, ws, b, True)
        res['cases'] += 1
        res['exact'] += int(np.array_equal(_bits(yr), _bits(yt)))
        res['crafted_elems'] += int(idx.size)
    return res


def run_large_acc(eng, n=30):
    """|acc| > 2^24 (float conversion of the int32 accumulator rounds)."""
    import torch
    torch.backends.quantized.engine = eng
    rng = np.random.default_rng(7)
    ok = tot = 0
    for t in range(n):
        M = int(rng.choice([1, 3, 16]))
        K = 4096
        N = 16
        wq = rng.choice([-128, 127, -127, 1, 0], size=(N, K), p=[.3, .3, .2, .1, .1]).astype(np.int8)
        ws = np.full(N, f32(rng.uniform(1e-4, 1e-2)), f32)
        wt = torch._make_per_tensor_quantized_tensor(torch.from_numpy(wq), float(ws[0]), 0)
        b = rng.standard_normal(N).astype(f32)
        p = torch.ops.quantized.linear_prepack(wt, torch.from_numpy(b))
        lo, hi = -f32(rng.uniform(0, 3)), f32(rng.uniform(0.1, 3))
        x = rng.choice([lo, hi], size=(M, K)).astype(f32)
        yt = torch.ops.quantized.linear_dynamic(torch.from_numpy(x), p, True).numpy()
        yr = LINEAR[eng](x, wq, ws, b, True)
        tot += 1
        ok += int(np.array_equal(_bits(yr), _bits(yt)))
    return ok, tot


def run_cache_bug_demo():
    """first call M=1 (module cache), then two M=16 calls whose x-scale is clamped to
    6.1e-5 (identical output scales) but whose zero points differ."""
    import torch
    torch.backends.quantized.engine = 'onednn'
    rng = np.random.default_rng(2024)
    K, N = 8, 8
    wq = rng.integers(-128, 128, (N, K)).astype(np.int8)
    ws = np.full(N, f32(0.004), f32)
    b = rng.standard_normal(N).astype(f32)
    p = torch.ops.quantized.linear_prepack(
        torch._make_per_tensor_quantized_tensor(torch.from_numpy(wq), float(ws[0]), 0), torch.from_numpy(b))
    st = OnednnLinearState(wq, ws, b, torch.get_num_threads())

    def mkx(M, zp):
        r = 127 * 3e-5
        lo, hi = f32(-r * zp / 127), f32(r * (127 - zp) / 127)
        x = rng.uniform(lo, hi, (M, K)).astype(f32)
        x[0, 0], x[0, 1] = lo, hi
        return x
    out = []
    for M, zp in [(1, 20), (16, 60), (16, 6), (16, 90), (1, 5), (4, 33), (4, 100)]:
        x = mkx(M, zp)
        yt = torch.ops.quantized.linear_dynamic(torch.from_numpy(x), p, True).numpy()
        yr = linear_onednn(x, wq, ws, b, True)
        ys = st(x)
        sc, z = choose_qparams(x.min(), x.max(), 0, 255, True)
        out.append('M=%-2d scale=%.3g zp=%-3d  torch==stateless:%-5s torch==stateful-emulation:%-5s max|diff| %.3g'
                   % (M, sc, z, np.array_equal(_bits(yt), _bits(yr)), np.array_equal(_bits(yt), _bits(ys)),
                      float(np.abs(yt - yr).max())))
    return out


def run_edge_cases():
    import torch
    from torch.ao.quantization import quantize_dynamic
    rng = np.random.default_rng(3)
    out = []
    nan, inf = float('nan'), float('inf')
    cases = {
        'all_zero': np.zeros((2, 8), f32),
        'nan': np.array([[nan] + [1.0] * 7] * 2, f32),
        '+inf': np.array([[inf] + [1.0] * 7] * 2, f32),
        '-inf': np.array([[-inf] + [1.0] * 7] * 2, f32),
        '+-inf': np.array([[-inf, inf] + [1.0] * 6] * 2, f32),
        'M=0 (2D)': np.zeros((0, 8), f32),
        'M=0 (3D [2,0,8])': np.zeros((2, 0, 8), f32),
        'M=1': rng.standard_normal((1, 8)).astype(f32),
        '3D [2,3,8]': rng.standard_normal((2, 3, 8)).astype(f32),
        'huge +-3e38': np.array([[3e38, -3e38] + [1.0] * 6], f32),
        'denormal const': np.full((1, 8), 1e-40, f32),
        '1D': np.ones(8, f32),
    }
    for eng in ['onednn', 'qnnpack']:
        torch.backends.quantized.engine = eng
        lin = torch.nn.Linear(8, 4)
        qm = quantize_dynamic(torch.nn.Sequential(lin), {torch.nn.Linear}, dtype=torch.qint8)
        wq, ws = quantize_weight(lin.weight.detach().numpy(), False)
        b = lin.bias.detach().numpy()
        for name, x in cases.items():
            try:
                with torch.no_grad():
                    yt = qm(torch.from_numpy(x)).numpy()
                tres = ('ok', yt)
            except Exception as e:
                tres = ('error', str(e).split('\n')[0][:90])
            try:
                with np.errstate(all='ignore'):
                    yr = LINEAR[eng](x, wq, ws, b, True)
                rres = ('ok', yr)
            except Exception as e:
                rres = ('error', str(e).split('\n')[0][:90])
            if tres[0] == 'ok' and rres[0] == 'ok':
                same = tres[1].shape == rres[1].shape and np.array_equal(_bits(tres[1]), _bits(rres[1]))
                desc = 'torch shape %s, e.g. %s' % (tuple(tres[1].shape), np.array2string(tres[1].ravel()[:4], precision=4))
            else:
                same = tres[0] == rres[0]
                desc = 'torch: %s' % (tres[1] if tres[0] == 'error' else 'ok %s' % (tuple(tres[1].shape),))
            out.append((eng, name, 'MATCH' if same else 'DIFF', desc))
    return out


def run_rnn(quick=False):
    import torch
    from torch.ao.quantization import quantize_dynamic
    res = {}
    rng = np.random.default_rng(11)

    class Wrap(torch.nn.Module):
        def __init__(s, r):
            super().__init__()
            s.r = r

        def forward(s, x, h):
            return s.r(x, h)

    for eng in ['onednn', 'qnnpack']:
        torch.backends.quantized.engine = eng
        for kind in ['LSTM', 'GRU']:
            for trial in range(3 if quick else 8):
                I, H = int(rng.choice([5, 16, 33])), int(rng.choice([4, 16, 31]))
                T, B, L = int(rng.choice([1, 3, 7])), int(rng.choice([1, 2, 5])), int(rng.choice([1, 2]))
                torch.manual_seed(int(rng.integers(1 << 30)))
                r = (torch.nn.LSTM if kind == 'LSTM' else torch.nn.GRU)(I, H, num_layers=L)
                qm = quantize_dynamic(Wrap(r), {torch.nn.LSTM, torch.nn.GRU}, dtype=torch.qint8)
                x = (rng.standard_normal((T, B, I)) * rng.uniform(0.1, 3)).astype(f32)
                h0 = (rng.standard_normal((L, B, H)) * 0.5).astype(f32)
                c0 = (rng.standard_normal((L, B, H)) * 0.5).astype(f32)
                layers = []
                for l in range(L):
                    P = {}
                    for nm in ['ih', 'hh']:
                        W = getattr(r, 'weight_%s_l%d' % (nm, l)).detach().numpy()
                        bb = getattr(r, 'bias_%s_l%d' % (nm, l)).detach().numpy()
                        wq, ws = quantize_weight(W, False)
                        P['w' + nm] = (wq, ws, bb)
                    layers.append(P)
                with torch.no_grad():
                    if kind == 'LSTM':
                        yt, (ht, ct) = qm(torch.from_numpy(x), (torch.from_numpy(h0), torch.from_numpy(c0)))
                        yr, hr, cr = lstm_ref(eng, x, layers, h0, c0)
                        outs = [(yt, yr), (ht, hr), (ct, cr)]
                    else:
                        yt, ht = qm(torch.from_numpy(x), torch.from_numpy(h0))
                        yr, hr = gru_ref(eng, x, layers, h0)
                        outs = [(yt, yr), (ht, hr)]
                exact = all(np.array_equal(_bits(a.numpy()), _bits(b)) for a, b in outs)
                st = res.setdefault((eng, kind), [0, 0])
                st[0] += int(exact)
                st[1] += 1
    return res


def main():
    quick = '--quick' in sys.argv
    # silence glog "qnnpack ignores reduce_range" warnings written to fd 2
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(devnull, 2)
    warnings.filterwarnings('ignore')
    import torch
    if '--threads' in sys.argv:
        torch.set_num_threads(int(sys.argv[sys.argv.index('--threads') + 1]))
    print('torch', torch.__version__, 'engines', torch.backends.quantized.supported_engines,
          'threads', torch.get_num_threads())
    t0 = time.time()
    summary, qp = run_linear_sweep(quick)
    print('\n== Linear sweep (quantize_dynamic module vs NumPy reference) ==')
    print('activation qparams identical to torch._choose_qparams_per_tensor: %d/%d' % tuple(qp))
    agg = {}
    for (eng, qs, M, K, N), st in sorted(summary.items()):
        a = agg.setdefault((eng, qs), [0, 0, 0, 0, 0, 0, 0])
        for i in (0, 1, 2, 3, 5, 6):
            a[i] += st[i]
        a[4] = max(a[4], st[4])
    print('stateless reference (pure formula):')
    for (eng, qs), a in sorted(agg.items()):
        print('  %-8s %-12s cases bit-exact %5d/%-5d  elements bit-exact %9d/%-9d  max ulp diff %d'
              % (eng, qs, a[0], a[1], a[2], a[3], a[4]))
    print('with onednn primitive-cache emulation (OnednnLinearState):')
    for (eng, qs), a in sorted(agg.items()):
        print('  %-8s %-12s cases bit-exact %5d/%-5d  (cases where the stale-zero-point bug fired: %d)'
              % (eng, qs, a[5], a[1], a[6]))
    print('per shape: exact cases (stateless/stateful) / cases, each case = one random input '
          '(%d input kinds)' % (len(KINDS) if not quick else len(KINDS[::3])))
    for eng in ['onednn', 'qnnpack']:
        for qs in ['per_tensor', 'per_channel']:
            row = []
            for (e, q, M, K, N), st in sorted(summary.items()):
                if e == eng and q == qs:
                    row.append('M%d K%d N%d:%d/%d/%d' % (M, K, N, st[0], st[5], st[1]))
            print('  %s %s' % (eng, qs))
            for i in range(0, len(row), 6):
                print('    ' + '  '.join(row[i:i + 6]))
    adv = run_adversarial_onednn(60 if quick else 200)
    print('\n== onednn adversarial rounding cases (x*inv+zp near .5) ==')
    print('  cases bit-exact %d/%d  (crafted elements %d)' % (adv['exact'], adv['cases'], adv['crafted_elems']))
    for eng in ['onednn', 'qnnpack']:
        ok, tot = run_large_acc(eng, 10 if quick else 30)
        print('== |acc| > 2^24 (K=4096), %s: bit-exact %d/%d' % (eng, ok, tot))
    print('\n== onednn stale-zero-point demonstration ==')
    for line in run_cache_bug_demo():
        print('  ' + line)
    print('\n== Edge cases ==')
    for r in run_edge_cases():
        print('  %-8s %-18s %-5s %s' % r)
    print('\n== LSTM / GRU (quantize_dynamic) vs reference (dynamic linears + ATen float elementwise) ==')
    for (eng, kind), st in sorted(run_rnn(quick).items()):
        print('  %-8s %-4s bit-exact %d/%d' % (eng, kind, st[0], st[1]))
    print('\nelapsed %.1fs' % (time.time() - t0))
    os.dup2(saved, 2)


if __name__ == '__main__':
    main()
