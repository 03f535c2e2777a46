# Makes welch.json, the test vectors of TestWelchScipy: Welch's t-test on
# random samples, as SciPy computes it. Run with Debian's python3-scipy
# (1.10.1 made the committed file):  python3 welch.py > welch.json
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(23)
cases = []
for i in range(40):
    na, nb = rng.integers(2, 9, size=2)
    a = rng.normal(100, rng.uniform(1, 30), size=na).round(3)
    b = rng.normal(100 + rng.uniform(-40, 40), rng.uniform(1, 30), size=nb).round(3)
    t, p = stats.ttest_ind(a, b, equal_var=False)
    va, vb = a.var(ddof=1) / na, b.var(ddof=1) / nb
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    cases.append({"a": a.tolist(), "b": b.tolist(), "t": float(t), "df": float(df),
                  "p": float(p), "t975": float(stats.t.ppf(0.975, df)),
                  "t995": float(stats.t.ppf(0.995, df))})
print(json.dumps({"made_by": "internal/stats/testdata/welch.py, SciPy " + __import__("scipy").__version__, "cases": cases}, indent=1))
