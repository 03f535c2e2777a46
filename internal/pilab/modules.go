package pilab

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Modules resolves kernel modules in a module directory as the guest
// must load them: each module after the ones it depends on. Debian's
// package has no modules.dep (depmod writes it when the package is
// installed, and kmod is not on every test machine), so the dependencies
// are read from each module's own .modinfo "depends=" entry, the field
// depmod reads too.
type Modules struct {
	dir     string
	paths   map[string]string // module name, with '_' for '-', to its file
	builtin map[string]bool
}

// OpenModules indexes dir (lib/modules/RELEASE).
func OpenModules(dir string) (*Modules, error) {
	m := &Modules{dir: dir, paths: map[string]string{}, builtin: map[string]bool{}}
	err := filepath.WalkDir(filepath.Join(dir, "kernel"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".ko") {
			m.paths[moduleName(p)] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if f, err := os.Open(filepath.Join(dir, "modules.builtin")); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			m.builtin[moduleName(s.Text())] = true
		}
		f.Close()
	}
	return m, nil
}

// moduleName is the kernel's name for a module file: its base name
// without .ko, '-' written as '_' (the kernel treats them alike).
func moduleName(path string) string {
	return strings.ReplaceAll(strings.TrimSuffix(filepath.Base(path), ".ko"), "-", "_")
}

// Closure returns the files of the named modules and of everything they
// depend on, each after its dependencies. Modules built into the kernel
// are left out; a name that is neither a module nor built in is an error.
func (m *Modules) Closure(names ...string) ([]string, error) {
	var order []string
	state := map[string]int{} // 1: being visited, 2: done
	var visit func(name string) error
	visit = func(name string) error {
		name = strings.ReplaceAll(name, "-", "_")
		switch state[name] {
		case 1:
			return fmt.Errorf("module %s depends on itself", name)
		case 2:
			return nil
		}
		path, ok := m.paths[name]
		if !ok {
			if m.builtin[name] {
				state[name] = 2
				return nil
			}
			return fmt.Errorf("module %s: not in %s", name, m.dir)
		}
		state[name] = 1
		deps, err := moduleDepends(path)
		if err != nil {
			return err
		}
		for _, d := range deps {
			if err := visit(d); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		state[name] = 2
		order = append(order, path)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// moduleDepends reads the depends= entry of a module's .modinfo section.
func moduleDepends(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("%s: no .modinfo section", path)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParseModinfoDepends(data), nil
}

// ParseModinfoDepends returns the module names of the depends= entry in
// a .modinfo section (NUL-separated key=value strings); none when the
// entry is empty or absent.
func ParseModinfoDepends(modinfo []byte) []string {
	for _, kv := range bytes.Split(modinfo, []byte{0}) {
		v, ok := bytes.CutPrefix(kv, []byte("depends="))
		if !ok {
			continue
		}
		var names []string
		for _, n := range strings.Split(string(v), ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return names
	}
	return nil
}
