/**
 * Cochran's sample size, with the finite-population correction when the population is known:
 * n0 = z² p (1 − p) / e², n = n0 / (1 + (n0 − 1) / N), rounded up.
 */
export interface SampleSizeInput {
  /** Confidence level as a fraction, e.g. 0.95. */
  confidence: number;
  /** Margin of error as a fraction; default 0.05. */
  marginOfError?: number;
  /** Expected proportion; default 0.5 (the most conservative). */
  proportion?: number;
  /** Population size, when known. */
  population?: number;
}

/** The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const poly = (k: number[], x: number): number => k.reduce((acc, v) => acc * x + v, 0);
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

export function cochranSampleSize(i: SampleSizeInput): { required: number; z: number; withoutCorrection: number } {
  const e = i.marginOfError ?? 0.05;
  const p = i.proportion ?? 0.5;
  const z = normalQuantile(1 - (1 - i.confidence) / 2);
  const n0 = (z * z * p * (1 - p)) / (e * e);
  const n = i.population ? n0 / (1 + (n0 - 1) / i.population) : n0;
  return { required: Math.ceil(n - 1e-9), z: Math.round(z * 1e4) / 1e4, withoutCorrection: Math.ceil(n0 - 1e-9) };
}
