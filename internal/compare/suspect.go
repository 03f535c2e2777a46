package compare

import (
	"slices"

	"github.com/thruput/thruput/internal/result"
)

// suspectRuns are the notes of the suspect runs among ids ("<id>:
// suspect: under-voltage from 2.0 s (...)"): a column holding one has
// figures that may not be its machine's own, and no ratio of it is a
// plain faster or slower.
func suspectRuns(groups []Group, ids []string) []string {
	var out []string
	for _, g := range groups {
		for _, d := range g.Docs {
			if d.Suspect() && slices.Contains(ids, d.ID) && !slices.Contains(out, d.ID+": "+d.SuspectNote()) {
				out = append(out, d.ID+": "+d.SuspectNote())
			}
		}
	}
	return out
}

// suspectSide says which of two runs set against each other is suspect:
// "this run", "the previous run", "both runs", or "".
func suspectSide(now, prev *result.Document) string {
	switch {
	case now.Suspect() && prev.Suspect():
		return "both runs"
	case now.Suspect():
		return "this run"
	case prev.Suspect():
		return "the previous run"
	}
	return ""
}
