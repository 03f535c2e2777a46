package suite

import (
	"slices"
	"time"
)

func minBound(st Step) time.Duration {
	if st.Bound > 0 {
		return min(st.Bound, minPhase)
	}
	return minPhase
}

// share is the bound of each phase when left is what remains of the
// budget for steps: the same for every phase, but that a step whose own
// bound is lower keeps it and leaves the rest to the others; 0 when every
// step's own bound fits (no bound need be given). A step run as planned
// costs its plain time and takes no share.
func share(steps []Step, left time.Duration) time.Duration {
	var fixed time.Duration
	n := 0
	for _, st := range steps {
		if st.AsPlanned {
			fixed += st.Plain
			continue
		}
		fixed, n = fixed+st.Fixed, n+st.Phases
	}
	rest := left - fixed
	byBound := slices.Clone(steps)
	slices.SortFunc(byBound, func(a, b Step) int {
		switch {
		case a.Bound == b.Bound:
			return 0
		case a.Bound == 0:
			return 1
		case b.Bound == 0:
			return -1
		}
		return int(a.Bound - b.Bound)
	})
	for _, st := range byBound {
		if st.Phases == 0 || st.AsPlanned {
			continue
		}
		if st.Bound == 0 || st.Bound*time.Duration(n) > rest {
			return max(minPhase, (rest / time.Duration(n)).Truncate(100*time.Millisecond))
		}
		rest -= st.Bound * time.Duration(st.Phases)
		n -= st.Phases
	}
	return 0
}

// bounded gives step i its phases' bound, as its BoundFlag, when left
// remains of the round's budget: its share (share), never above the
// plan's own bound; a step run as planned, none.
func bounded(plan []Step, i int, left time.Duration) []string {
	st := plan[i]
	if st.AsPlanned {
		return slices.Clone(st.Args)
	}
	s := share(plan[i:], left)
	if st.BoundFlag == "" || st.Phases == 0 || s == 0 || st.Bound > 0 && s >= st.Bound {
		// A copy: the caller appends its own flags.
		return slices.Clone(st.Args)
	}
	return append(slices.Clone(st.Args), st.BoundFlag, st.boundValue(s))
}
