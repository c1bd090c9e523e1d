package ingest

import (
	"slices"
	"strings"
)

// KindVirt is `systemd-detect-virt`: the one word naming the hypervisor
// or container the host runs in ("kvm", "vmware", "microsoft", "none").
const KindVirt Kind = "detect-virt"

// Virt is what systemd-detect-virt printed. It is read after its command
// line ("$ systemd-detect-virt"), or as an input that is that one word
// alone.
type Virt struct {
	Scoped
	artifactHead
	// Tech is the identifier, e.g. "kvm"; "none" on bare metal.
	Tech     string
	Evidence Evidence
}

// Kind returns KindVirt.
func (v *Virt) Kind() Kind { return KindVirt }

// VM reports whether Tech names a virtual machine, not a container or
// bare metal.
func (v *Virt) VM() bool { return slices.Contains(virtVMs, v.Tech) }

// virtVMs and virtContainers are systemd-detect-virt's identifiers.
var (
	virtVMs        = []string{"qemu", "kvm", "amazon", "zvm", "vmware", "microsoft", "oracle", "powervm", "xen", "bochs", "uml", "parallels", "bhyve", "qnx", "acrn", "apple", "sre", "google"}
	virtContainers = []string{"openvz", "lxc", "lxc-libvirt", "systemd-nspawn", "docker", "podman", "rkt", "wsl", "proot", "pouch"}
)

type virtParser struct {
	out Virt
	// after is set on the line after the command line.
	after bool
	// words counts the input's non-blank lines; lone holds the only one
	// when it is an identifier.
	words int
	lone  Virt
}

// NewVirtParser returns a parser for systemd-detect-virt in the input src.
func NewVirtParser(src string) Parser {
	return &virtParser{out: Virt{artifactHead: artifactHead{src: src}}}
}

func virtID(s string) bool {
	return s == "none" || slices.Contains(virtVMs, s) || slices.Contains(virtContainers, s)
}

// Feed implements Parser.
func (p *virtParser) Feed(l Line) {
	t := strings.TrimSpace(l.Text)
	if t == "" {
		return
	}
	p.words++
	if p.words == 1 && virtID(t) {
		p.lone = Virt{Tech: t, Evidence: At(p.out.src, l)}
	}
	if p.after && virtID(t) && p.out.Tech == "" {
		p.out.Tech, p.out.Evidence = t, At(p.out.src, l)
		p.out.lines.add(l)
	}
	_, cmd := findCommand(t, "systemd-detect-virt")
	p.after = cmd && !l.NCCL
}

// Result implements Parser.
func (p *virtParser) Result() Artifact {
	if p.out.Tech == "" && p.words == 1 && p.lone.Tech != "" {
		p.out.Tech, p.out.Evidence = p.lone.Tech, p.lone.Evidence
		p.out.lines.n = 1
	}
	if p.out.Tech == "" {
		return nil
	}
	return &p.out
}
