// Package collect gathers, read-only, what `rocelab diagnose` needs from a
// live Linux host: the RDMA devices under /sys/class/infiniband (ports,
// hw_counters, counters, GID tables with their types and netdevs), ethtool
// statistics of the RDMA netdevs, the DCQCN sysfs settings and forced
// traffic classes, the bonds of /proc/net/bonding, /proc/modules, and the
// output of mlnx_qos, ibv_devinfo, rdma link, ip -d -s -s link, lspci -vv,
// nvidia-smi (topo -m, -q, nvlink -s, --query-gpu), devlink health,
// ethtool (-i, -a, --show-fec, -m), mlxconfig query and mlxlink -c (or
// mstflint's mstconfig and mstlink), numactl -H, lscpu, lstopo's XML,
// mst status -v, systemd-detect-virt and the kernel's RDMA lines, plus a
// named NCCL environment file.
// Counters are taken twice, an interval apart, each dump after a date line,
// so that diagnose judges rates over the window. Everything goes into one
// tar.gz archive that diagnose reads as it is; what could not be read is
// recorded in the archive's meta.txt, never fatal.
//
// Root points the reads at a tree (its /sys, /proc, /etc): a fixture, or a
// copy of another host's files. Commands then come from the tree's own
// bin directories, never from this host, whose ethtool or ibv_devinfo
// would describe the wrong machine; a tree without them records them as
// not run.
package collect

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Options tune a collection.
type Options struct {
	// Root is the file-system root to read /sys, /proc and /etc under;
	// "" or "/" for the live host.
	Root string
	// Interval is the time between the two counter snapshots; zero takes
	// one snapshot.
	Interval time.Duration
	// Timeout bounds each source (a command or a sysfs walk).
	Timeout time.Duration
	// EnvFile is a file of NCCL settings to include, or "".
	EnvFile string
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// Sleep waits between snapshots; nil means a timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// EthtoolStats reads one netdev's statistics through the ethtool
	// ioctl; nil (and always with a Root) uses the ethtool command.
	EthtoolStats func(netdev string) (map[string]uint64, error)
}

// Meta is what the archive's meta.txt records.
type Meta struct {
	Host, Kernel string
	Started      time.Time
	Interval     time.Duration
	Devices      []string // RDMA devices found
	Netdevs      []string // their netdevs
	Missing      []string // "source: why", for every source not read
}

// Collector runs one collection.
type collector struct {
	opts  Options
	meta  Meta
	files map[string]*bytes.Buffer
	order []string
}

// Collect gathers from the host and writes the archive to w.
func Collect(ctx context.Context, opts Options, w io.Writer) (*Meta, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Sleep == nil {
		opts.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	c := &collector{opts: opts, files: map[string]*bytes.Buffer{}}
	c.meta.Started = opts.Now()
	c.meta.Interval = opts.Interval
	c.host()
	c.devices()
	c.snapshot(ctx, 1)
	if opts.Interval > 0 {
		if err := opts.Sleep(ctx, opts.Interval); err != nil {
			c.missing("second snapshot", err.Error())
		} else {
			c.snapshot(ctx, 2)
		}
	}
	c.once(ctx)
	c.writeMeta()
	return &c.meta, c.archive(w)
}

// lookPath finds a command: on PATH for the live host, in the tree's bin
// directories with a Root.
func (c *collector) lookPath(name string) (string, error) {
	if c.opts.Root == "" || c.opts.Root == "/" {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		return "", errors.New("command not found")
	}
	for _, d := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		p := c.path(filepath.Join(d, name))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("not run: --root %s is not this host, and the tree has no %s in its bin directories", c.opts.Root, name)
}

// path maps an absolute host path into Root.
func (c *collector) path(p string) string {
	if c.opts.Root == "" || c.opts.Root == "/" {
		return p
	}
	return filepath.Join(c.opts.Root, p)
}

func (c *collector) missing(source, why string) {
	c.meta.Missing = append(c.meta.Missing, source+": "+why)
}

// file returns the buffer of an archive file, starting it with the
// `hostname` line that tells diagnose whose host it is.
func (c *collector) file(name string) *bytes.Buffer {
	if b, ok := c.files[name]; ok {
		return b
	}
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "$ hostname\n%s\n", c.meta.Host)
	c.files[name] = b
	c.order = append(c.order, name)
	return b
}

// dateLine writes the time a dump is taken, as diagnose reads it.
func (c *collector) dateLine(b *bytes.Buffer) {
	t := c.opts.Now()
	fmt.Fprintf(b, "$ date +%%s.%%N\n%d.%09d\n", t.Unix(), t.Nanosecond())
}

func (c *collector) readTrim(p string) (string, error) {
	b, err := os.ReadFile(c.path(p))
	return strings.TrimSpace(string(b)), err
}

func (c *collector) host() {
	if h, err := c.readTrim("/proc/sys/kernel/hostname"); err == nil && h != "" {
		c.meta.Host = h
	} else if h, err := c.readTrim("/etc/hostname"); err == nil && h != "" {
		c.meta.Host = h
	} else if h, err := os.Hostname(); err == nil && c.opts.Root == "" {
		c.meta.Host = h
	} else {
		c.meta.Host = "unknown-host"
		c.missing("hostname", "not found under /proc or /etc")
	}
	if k, err := c.readTrim("/proc/sys/kernel/osrelease"); err == nil {
		c.meta.Kernel = k
	} else {
		c.missing("kernel release", errText(err))
	}
}

// devices lists the RDMA devices and their netdevs.
func (c *collector) devices() {
	ib := c.path("/sys/class/infiniband")
	ents, err := os.ReadDir(ib)
	if err != nil || len(ents) == 0 {
		why := "no RDMA device (the directory is absent: no RDMA driver loaded)"
		if err == nil {
			why = "no RDMA device (the directory is empty)"
		}
		c.missing("/sys/class/infiniband", why)
		return
	}
	nd := map[string]bool{}
	for _, e := range ents {
		dev := e.Name()
		c.meta.Devices = append(c.meta.Devices, dev)
		for _, port := range c.ports(dev) {
			for _, f := range c.list(filepath.Join(ib, dev, "ports", port, "gid_attrs", "ndevs")) {
				if n, err := c.readTrim(filepath.Join("/sys/class/infiniband", dev, "ports", port, "gid_attrs", "ndevs", f)); err == nil && n != "" {
					nd[n] = true
				}
			}
		}
		for _, n := range c.list(filepath.Join(ib, dev, "device", "net")) {
			nd[n] = true
		}
	}
	for n := range nd {
		c.meta.Netdevs = append(c.meta.Netdevs, n)
	}
	sort.Strings(c.meta.Netdevs)
}

func (c *collector) ports(dev string) []string {
	return c.list(c.path(filepath.Join("/sys/class/infiniband", dev, "ports")))
}

// list returns the names in a directory, sorted; nil when unreadable.
func (c *collector) list(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// snapshot dumps the cumulative counters: hw_counters and counters of
// every RDMA port (grep form) and ethtool -S of every RDMA netdev.
func (c *collector) snapshot(ctx context.Context, n int) {
	if len(c.meta.Devices) > 0 {
		b := c.file("rdma_counters.txt")
		c.dateLine(b)
		fmt.Fprintf(b, "$ grep -H . /sys/class/infiniband/*/ports/*/{hw_counters,counters}/*\n")
		for _, dev := range c.meta.Devices {
			for _, port := range c.ports(dev) {
				for _, kind := range []string{"hw_counters", "counters"} {
					rel := filepath.Join("/sys/class/infiniband", dev, "ports", port, kind)
					for _, f := range c.list(c.path(rel)) {
						if v, err := c.readTrim(filepath.Join(rel, f)); err == nil && !strings.ContainsAny(v, "\n") {
							fmt.Fprintf(b, "%s/%s:%s\n", rel, f, v)
						}
					}
				}
			}
		}
	}
	for _, nd := range c.meta.Netdevs {
		c.dateLine(c.file("ethtool_" + nd + ".txt"))
		if c.opts.EthtoolStats != nil && (c.opts.Root == "" || c.opts.Root == "/") {
			stats, err := c.opts.EthtoolStats(nd)
			if err == nil {
				names := make([]string, 0, len(stats))
				for k := range stats {
					names = append(names, k)
				}
				sort.Strings(names)
				b := c.file("ethtool_" + nd + ".txt")
				fmt.Fprintf(b, "$ ethtool -S %s\nNIC statistics:\n", nd)
				for _, k := range names {
					fmt.Fprintf(b, "     %s: %d\n", k, stats[k])
				}
				continue
			}
			if n == 1 {
				c.missing("ethtool ioctl "+nd, err.Error()+"; used the ethtool command")
			}
		}
		c.command(ctx, "ethtool_"+nd+".txt", fmt.Sprintf("ethtool -S %s (snapshot %d)", nd, n), "ethtool", "-S", nd)
	}
}

// once gathers what does not change between snapshots.
func (c *collector) once(ctx context.Context) {
	if len(c.meta.Devices) > 0 {
		c.gidTable()
		c.dcqcn()
	}
	c.command(ctx, "ibv_devinfo.txt", "ibv_devinfo -v", "ibv_devinfo", "-v")
	c.command(ctx, "rdma_link.txt", "rdma link", "rdma", "link")
	// Every netdev's details (bonds, VLANs, MTU), but the counters of the
	// RDMA netdevs only: a management port's CRC errors since boot and an
	// active-backup bond's backup port, which drops by design, are none
	// of the fabric's.
	c.command(ctx, "ip_link.txt", "ip -d link", "ip", "-d", "link")
	for _, nd := range c.meta.Netdevs {
		c.command(ctx, "ip_stats.txt", "ip -s -s link show dev "+nd, "ip", "-s", "-s", "link", "show", "dev", nd)
	}
	for _, nd := range c.meta.Netdevs {
		c.command(ctx, "mlnx_qos_"+nd+".txt", "mlnx_qos -i "+nd, "mlnx_qos", "-i", nd)
	}
	c.command(ctx, "lspci.txt", "lspci -vv", "lspci", "-vv")
	c.command(ctx, "nvidia_smi_topo.txt", "nvidia-smi topo -m", "nvidia-smi", "topo", "-m")
	c.dmesg(ctx)
	c.hostState(ctx)
	if c.opts.EnvFile != "" {
		data, err := readEnvFile(c.opts.EnvFile)
		if err != nil {
			c.missing("NCCL environment file "+c.opts.EnvFile, errText(err))
		} else {
			b := c.file("nccl_env.txt")
			fmt.Fprintf(b, "$ cat %s\n", c.opts.EnvFile)
			b.Write(data)
		}
	}
}

// command runs a read-only command with the per-source timeout and writes
// its output after the command line; a missing tool or a failure is
// recorded, not fatal.
func (c *collector) command(ctx context.Context, file, source, name string, args ...string) {
	out, err := c.run(ctx, name, args...)
	if err != nil {
		c.missing(source, err.Error())
		return
	}
	b := c.file(file)
	fmt.Fprintf(b, "$ %s\n", strings.Join(append([]string{name}, args...), " "))
	b.Write(out)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		b.WriteByte('\n')
	}
}

func (c *collector) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	path, err := c.lookPath(name)
	if err != nil {
		return nil, err
	}
	name = path
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 200 * time.Millisecond // a killed command's children may hold its output open
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("timed out after %s", c.opts.Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), errors.New(msg)
	}
	return stdout.Bytes(), nil
}

// dmesg keeps the kernel lines about the NIC and RDMA.
func (c *collector) dmesg(ctx context.Context) {
	out, err := c.run(ctx, "dmesg")
	if err != nil {
		c.missing("dmesg", err.Error())
		return
	}
	b := c.file("dmesg.txt")
	fmt.Fprintf(b, "$ dmesg | grep -iE 'mlx5|infiniband|rdma|roce|bnxt|irdma'\n")
	for _, l := range strings.Split(string(out), "\n") {
		ll := strings.ToLower(l)
		for _, k := range []string{"mlx5", "infiniband", "rdma", "roce", "bnxt", "irdma"} {
			if strings.Contains(ll, k) {
				b.WriteString(l + "\n")
				break
			}
		}
	}
}

// gidTable writes the GID tables in show_gids form from sysfs: index, GID,
// IPv4, RoCE type and netdev of every non-empty slot.
func (c *collector) gidTable() {
	b := c.file("show_gids.txt")
	fmt.Fprintf(b, "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n")
	n := 0
	for _, dev := range c.meta.Devices {
		for _, port := range c.ports(dev) {
			base := filepath.Join("/sys/class/infiniband", dev, "ports", port)
			idx := c.list(c.path(filepath.Join(base, "gids")))
			sort.Slice(idx, func(i, j int) bool { return atoi(idx[i]) < atoi(idx[j]) })
			for _, i := range idx {
				gid, err := c.readTrim(filepath.Join(base, "gids", i))
				if err != nil || gid == "" || strings.Trim(gid, "0:") == "" {
					continue
				}
				typ, _ := c.readTrim(filepath.Join(base, "gid_attrs", "types", i))
				nd, _ := c.readTrim(filepath.Join(base, "gid_attrs", "ndevs", i))
				ver := "v1"
				if strings.Contains(typ, "v2") {
					ver = "v2"
				}
				fmt.Fprintf(b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dev, port, i, gid, ipv4Of(gid), ver, nd)
				n++
			}
		}
	}
	fmt.Fprintf(b, "n_gids_found=%d\n", n)
}

// dcqcn writes the DCQCN settings of every RDMA netdev
// (/sys/class/net/<if>/ecn/roce_np and roce_rp) as path:value lines.
func (c *collector) dcqcn() {
	b := c.file("dcqcn_sysfs.txt")
	found := false
	for _, nd := range c.meta.Netdevs {
		for _, side := range []string{"roce_np", "roce_rp"} {
			rel := filepath.Join("/sys/class/net", nd, "ecn", side)
			for _, f := range c.list(c.path(rel)) {
				p := filepath.Join(rel, f)
				if st, err := os.Stat(c.path(p)); err == nil && st.IsDir() {
					for _, g := range c.list(c.path(p)) {
						if v, err := c.readTrim(filepath.Join(p, g)); err == nil {
							fmt.Fprintf(b, "%s/%s:%s\n", p, g, v)
							found = true
						}
					}
					continue
				}
				if v, err := c.readTrim(p); err == nil {
					fmt.Fprintf(b, "%s:%s\n", p, v)
					found = true
				}
			}
		}
	}
	if !found {
		c.missing("DCQCN sysfs (/sys/class/net/<if>/ecn)", "not present for the RDMA netdevs")
	}
}

// writeMeta writes meta.txt, which diagnose reads as the archive's header.
func (c *collector) writeMeta() {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# rocelab collect 1\n")
	fmt.Fprintf(&b, "host: %s\n", c.meta.Host)
	fmt.Fprintf(&b, "kernel: %s\n", nonEmpty(c.meta.Kernel))
	fmt.Fprintf(&b, "started: %s\n", c.meta.Started.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(&b, "interval: %s\n", c.meta.Interval)
	fmt.Fprintf(&b, "rdma_devices: %d %s\n", len(c.meta.Devices), strings.Join(c.meta.Devices, " "))
	fmt.Fprintf(&b, "rdma_netdevs: %s\n", nonEmpty(strings.Join(c.meta.Netdevs, " ")))
	for _, m := range c.meta.Missing {
		fmt.Fprintf(&b, "missing: %s\n", m)
	}
	c.files["meta.txt"] = &b
	c.order = append([]string{"meta.txt"}, c.order...)
}

// archive writes every file into a tar.gz under one directory named for
// the host and time.
func (c *collector) archive(w io.Writer) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	dir := fmt.Sprintf("rocelab-collect-%s-%s", c.meta.Host, c.meta.Started.UTC().Format("20060102T150405Z"))
	for _, name := range c.order {
		data := c.files[name].Bytes()
		hdr := &tar.Header{Name: dir + "/" + name, Mode: 0o644, Size: int64(len(data)), ModTime: c.meta.Started, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func nonEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 1 << 30
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// ipv4Of returns the IPv4 address of an IPv4-mapped GID
// ("0000:0000:0000:0000:0000:ffff:0b00:0048" → "11.0.0.72"), else "".
func ipv4Of(gid string) string {
	p := strings.Split(gid, ":")
	if len(p) != 8 || strings.ToLower(p[5]) != "ffff" || strings.Trim(strings.Join(p[:5], ""), "0") != "" {
		return ""
	}
	var b [4]int
	for i, h := range []string{p[6], p[7]} {
		var v int
		if _, err := fmt.Sscanf(h, "%x", &v); err != nil {
			return ""
		}
		b[2*i], b[2*i+1] = v>>8, v&0xff
	}
	return fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3])
}

// maxEnvFile bounds the NCCL settings file collect copies: an env file,
// job script or manifest is a few KiB; anything past this is not one
// (a device, a log), and reading it whole could exhaust memory.
const maxEnvFile = 1 << 20

// readEnvFile reads the NCCL settings file, refusing one larger than
// maxEnvFile without reading past it.
func readEnvFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxEnvFile {
		return nil, fmt.Errorf("more than %d bytes: not an env file, job script or manifest", maxEnvFile)
	}
	return data, nil
}
