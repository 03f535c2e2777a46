// Package fleet measures many machines at once over SSH: it places a static
// thruput binary on each host (cached by version and SHA-256), runs a
// measurement there, brings the results home, and schedules network tests
// between hosts so that no host is in two at once. Nothing is installed on
// the hosts beforehand and nothing keeps running after.
package fleet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/thruput/thruput/internal/result"
)

// Host is one machine of the fleet as the controller reaches it.
type Host struct {
	// Name is how the user calls the host: the inventory name or the
	// --hosts entry without its user, and without its port when that is
	// ssh's default (hosts port-forwarded behind one address differ only
	// by it); runs are labelled host=Name.
	Name string `json:"name"`
	// Address is what is dialled (an ~/.ssh/config alias is resolved
	// later); empty means Name.
	Address string `json:"address,omitempty"`
	// User and Port are empty/zero when ~/.ssh/config or the defaults
	// decide.
	User     string            `json:"user,omitempty"`
	Port     int               `json:"port,omitempty"`
	Identity string            `json:"identity,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
}

func (h Host) addr() string {
	if h.Address != "" {
		return h.Address
	}
	return h.Name
}

// ParseHost reads one --hosts entry: [user@]host[:port], with an IPv6
// address in brackets when a port follows ([fe80::1]:2222).
func ParseHost(s string) (Host, error) {
	var h Host
	orig := s
	if s == "" {
		return h, errors.New("empty host")
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		h.User, s = s[:i], s[i+1:]
		if h.User == "" {
			return h, fmt.Errorf("%q: empty user before @", orig)
		}
	}
	host := s
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 {
		hp, port, err := net.SplitHostPort(s)
		if err != nil {
			return h, fmt.Errorf("%q: %v", orig, err)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return h, fmt.Errorf("%q: port %q is not a number from 1 to 65535", orig, port)
		}
		host, h.Port = hp, n
	}
	if host == "" || strings.ContainsAny(host, " \t/,@[]") {
		return h, fmt.Errorf("%q: not a host name or address", orig)
	}
	h.Name = host
	if h.Port != 0 && h.Port != 22 {
		h.Name, h.Address = net.JoinHostPort(host, strconv.Itoa(h.Port)), host
	}
	return h, nil
}

// Inventory is the fleet file given with --inventory: defaults for every
// host, the hosts, and named groups of them.
type Inventory struct {
	User     string              `yaml:"user"`
	Port     int                 `yaml:"port"`
	Identity string              `yaml:"identity"`
	Labels   map[string]string   `yaml:"labels"`
	Hosts    []invHost           `yaml:"hosts"`
	Groups   map[string][]string `yaml:"groups"`
}

// invHost is a host entry: a mapping, or just a name.
type invHost struct {
	Name     string            `yaml:"name"`
	Address  string            `yaml:"address"`
	User     string            `yaml:"user"`
	Port     int               `yaml:"port"`
	Identity string            `yaml:"identity"`
	Labels   map[string]string `yaml:"labels"`
	Groups   []string          `yaml:"groups"`
}

func (h *invHost) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		h.Name = n.Value
		return nil
	}
	type plain invHost
	return n.Decode((*plain)(h))
}

// ParseInventory reads an inventory document; every problem names the
// host or key it is about.
func ParseInventory(data []byte) (*Inventory, error) {
	var inv Inventory
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&inv); err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	if len(inv.Hosts) == 0 {
		return nil, errors.New("inventory: no hosts")
	}
	if err := checkLabels(inv.Labels); err != nil {
		return nil, fmt.Errorf("inventory labels: %w", err)
	}
	seen := map[string]bool{}
	for i, h := range inv.Hosts {
		if h.Name == "" {
			return nil, fmt.Errorf("inventory: host %d has no name", i+1)
		}
		if _, err := ParseHost(h.Name); err != nil || strings.ContainsAny(h.Name, ":@") {
			return nil, fmt.Errorf("inventory: host name %q: a name, without user or port (those have keys of their own)", h.Name)
		}
		if seen[h.Name] {
			return nil, fmt.Errorf("inventory: host %q listed twice", h.Name)
		}
		seen[h.Name] = true
		if h.Port < 0 || h.Port > 65535 {
			return nil, fmt.Errorf("inventory: host %q: port %d out of range", h.Name, h.Port)
		}
		if err := checkLabels(h.Labels); err != nil {
			return nil, fmt.Errorf("inventory: host %q labels: %w", h.Name, err)
		}
		for _, g := range h.Groups {
			if inv.Groups == nil {
				inv.Groups = map[string][]string{}
			}
			inv.Groups[g] = append(inv.Groups[g], h.Name)
		}
	}
	for g, names := range inv.Groups {
		for _, n := range names {
			if !seen[n] {
				return nil, fmt.Errorf("inventory: group %q names host %q, which is not in hosts", g, n)
			}
		}
	}
	return &inv, nil
}

func checkLabels(m map[string]string) error {
	var kv []string
	for k, v := range m {
		kv = append(kv, k+"="+v)
	}
	_, err := result.ParseLabels(kv)
	return err
}

// host gives the inventory's entry for name with the defaults applied.
func (inv *Inventory) host(name string) (Host, bool) {
	for _, e := range inv.Hosts {
		if e.Name != name {
			continue
		}
		h := Host{Name: e.Name, Address: e.Address, User: e.User, Port: e.Port, Identity: e.Identity}
		if h.User == "" {
			h.User = inv.User
		}
		if h.Port == 0 {
			h.Port = inv.Port
		}
		if h.Identity == "" {
			h.Identity = inv.Identity
		}
		if len(inv.Labels)+len(e.Labels) > 0 {
			h.Labels = maps.Clone(inv.Labels)
			if h.Labels == nil {
				h.Labels = map[string]string{}
			}
			maps.Copy(h.Labels, e.Labels)
		}
		return h, true
	}
	return Host{}, false
}

// Select settles the hosts of a command: the --hosts entries (each a
// [user@]host[:port] or an inventory name; @FILE reads one per line),
// else the inventory's --group, else all its hosts.
func Select(hosts []string, inv *Inventory, group string) ([]Host, error) {
	var entries []string
	for _, e := range hosts {
		if file, ok := strings.CutPrefix(e, "@"); ok {
			lines, err := readHostFile(file)
			if err != nil {
				return nil, err
			}
			entries = append(entries, lines...)
			continue
		}
		for _, p := range strings.Split(e, ",") {
			if p = strings.TrimSpace(p); p != "" {
				entries = append(entries, p)
			}
		}
	}
	if group != "" {
		if inv == nil {
			return nil, errors.New("--group needs --inventory")
		}
		names, ok := inv.Groups[group]
		if !ok {
			return nil, fmt.Errorf("no group %q in the inventory (groups: %s)", group, strings.Join(slices.Sorted(maps.Keys(inv.Groups)), ", "))
		}
		entries = append(entries, names...)
	}
	if len(entries) == 0 && inv != nil {
		for _, h := range inv.Hosts {
			entries = append(entries, h.Name)
		}
	}
	if len(entries) == 0 {
		return nil, errors.New("no hosts: give --hosts or --inventory")
	}
	var out []Host
	seen := map[string]bool{}
	for _, e := range entries {
		h, err := ParseHost(e)
		if err != nil {
			return nil, err
		}
		if inv != nil {
			if ih, ok := inv.host(h.addr()); ok {
				if h.User != "" {
					ih.User = h.User
				}
				if h.Port != 0 {
					ih.Port = h.Port
				}
				h = ih
			}
		}
		if seen[h.Name] {
			return nil, fmt.Errorf("host %q given twice", h.Name)
		}
		seen[h.Name] = true
		out = append(out, h)
	}
	return out, nil
}

func readHostFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		out = append(out, strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no hosts in it", path)
	}
	return out, nil
}
