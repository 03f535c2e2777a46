package fleet

import (
	"fmt"
	"strings"
)

// Pair is one network test: From runs the client, To the server.
type Pair struct{ From, To int }

// Pairs lists the tests --pairs asks for among hosts: "all" (every
// ordered pair), "ring" (each host to the next, the last to the first),
// "star:NAME" (every host to NAME and back) or "A,B:C" (A and B each to C).
func Pairs(hosts []Host, spec string) ([]Pair, error) {
	n := len(hosts)
	if n < 2 {
		return nil, fmt.Errorf("a network test needs two hosts or more, got %d", n)
	}
	var out []Pair
	switch {
	case spec == "" || spec == "all":
		// Rounds of the circle method: each round pairs every host with
		// another, so the schedule below packs them with little waste.
		for _, round := range roundRobin(n) {
			for _, p := range round {
				out = append(out, Pair{p[0], p[1]})
			}
			for _, p := range round {
				out = append(out, Pair{p[1], p[0]})
			}
		}
	case spec == "ring":
		for i := range n {
			out = append(out, Pair{i, (i + 1) % n})
		}
	case strings.HasPrefix(spec, "star:"):
		name := strings.TrimPrefix(spec, "star:")
		hub := -1
		for i, h := range hosts {
			if h.Name == name {
				hub = i
			}
		}
		if hub < 0 {
			return nil, fmt.Errorf("--pairs %s: %q is not one of the hosts", spec, name)
		}
		for i := range n {
			if i != hub {
				out = append(out, Pair{i, hub}, Pair{hub, i})
			}
		}
	default:
		if out = listed(hosts, spec); out == nil {
			return nil, fmt.Errorf("--pairs %q: use all, ring, star:HOST or CLIENT,...:SERVER (names of the hosts)", spec)
		}
	}
	return out, nil
}

// listed reads "A,B:C" among hosts: A and B each to C; nil if spec is no
// such list. Names may hold a colon themselves (gw:2201): every colon is
// tried as the one before the server.
func listed(hosts []Host, spec string) []Pair {
	index := map[string]int{}
	for i, h := range hosts {
		index[h.Name] = i
	}
	for i := range len(spec) {
		if spec[i] != ':' {
			continue
		}
		to, ok := index[spec[i+1:]]
		if !ok {
			continue
		}
		var out []Pair
		seen := map[int]bool{to: true}
		for _, name := range strings.Split(spec[:i], ",") {
			from, ok := index[name]
			if !ok || seen[from] {
				out = nil
				break
			}
			seen[from] = true
			out = append(out, Pair{from, to})
		}
		if out != nil {
			return out
		}
	}
	return nil
}

// Into keeps the pairs whose server is hub's, for --concurrent with
// star:HUB: the clients load the one server together.
func Into(hosts []Host, pairs []Pair, spec string) []Pair {
	name, ok := strings.CutPrefix(spec, "star:")
	if !ok {
		return pairs
	}
	var out []Pair
	for _, p := range pairs {
		if hosts[p.To].Name == name {
			out = append(out, p)
		}
	}
	return out
}

// roundRobin gives the rounds of a round-robin tournament among n hosts
// (unordered pairs, each host at most once per round).
func roundRobin(n int) [][][2]int {
	ids := make([]int, 0, n+1)
	for i := range n {
		ids = append(ids, i)
	}
	if n%2 == 1 {
		ids = append(ids, -1) // a bye
	}
	m := len(ids)
	var rounds [][][2]int
	for range m - 1 {
		var r [][2]int
		for i := range m / 2 {
			a, b := ids[i], ids[m-1-i]
			if a >= 0 && b >= 0 {
				r = append(r, [2]int{a, b})
			}
		}
		rounds = append(rounds, r)
		// Keep the first fixed, rotate the rest by one.
		last := ids[m-1]
		copy(ids[2:], ids[1:m-1])
		ids[1] = last
	}
	return rounds
}

// Schedule packs pairs into rounds in which no host is in two tests:
// tests sharing a host would share its link and both figures would be
// wrong. A round holds at most parallel tests (0: no bound); the order
// of pairs is kept as far as the rule allows.
func Schedule(pairs []Pair, parallel int) [][]Pair {
	var rounds [][]Pair
	var busy []map[int]bool
	for _, p := range pairs {
		placed := false
		for i := range rounds {
			if busy[i][p.From] || busy[i][p.To] || (parallel > 0 && len(rounds[i]) >= parallel) {
				continue
			}
			rounds[i] = append(rounds[i], p)
			busy[i][p.From], busy[i][p.To] = true, true
			placed = true
			break
		}
		if !placed {
			rounds = append(rounds, []Pair{p})
			busy = append(busy, map[int]bool{p.From: true, p.To: true})
		}
	}
	return rounds
}
