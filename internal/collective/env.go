package collective

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"rocelab/internal/gpu"
)

// Version is an NCCL release, e.g. 2.30.7.
type Version struct{ Major, Minor, Patch int }

// DefaultVersion is the NCCL release whose sources (src/graph/tuning.cc,
// search.cc, enqueue.cc, transport/net_ib.cc) this package models.
var DefaultVersion = Version{2, 30, 7}

// ParseVersion reads "2.18.3" (the patch may be omitted), also as NCCL
// and its packages print it: the banner's "2.26.2+cuda12.8", a tag's
// "v2.28.9-1", a package's "2.26.2-1+cuda12.8". Only the numbers count.
func ParseVersion(s string) (Version, error) {
	const want = "want MAJOR.MINOR[.PATCH], optionally with a leading v, a -BUILD number and a +cudaX.Y suffix, e.g. 2.30.7 or 2.26.2-1+cuda12.8"
	num, build, hasBuild := strings.Cut(strings.TrimPrefix(strings.TrimSpace(s), "v"), "+")
	if hasBuild && (build == "" || strings.ContainsFunc(build, unicode.IsSpace)) {
		return Version{}, fmt.Errorf("NCCL version %q: %s", s, want)
	}
	num, rel, hasRel := strings.Cut(num, "-")
	if hasRel {
		if _, err := strconv.ParseUint(rel, 10, 16); err != nil {
			return Version{}, fmt.Errorf("NCCL version %q: %s", s, want)
		}
	}
	parts := strings.Split(num, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("NCCL version %q: %s", s, want)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 999 {
			return Version{}, fmt.Errorf("NCCL version %q: %q is not a number", s, p)
		}
		n[i] = v
	}
	if n[0] != 2 {
		return Version{}, fmt.Errorf("NCCL version %q: only NCCL 2.x is modelled", s)
	}
	return Version{n[0], n[1], n[2]}, nil
}

// AtLeast reports v >= major.minor.patch.
func (v Version) AtLeast(major, minor, patch int) bool {
	if v.Major != major {
		return v.Major > major
	}
	if v.Minor != minor {
		return v.Minor > minor
	}
	return v.Patch >= patch
}

// String returns "2.30.7".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// EnvError is a bad environment value.
type EnvError struct {
	Var, Value, Want string
}

// Error implements error.
func (e *EnvError) Error() string {
	return fmt.Sprintf("%s=%q: want %s", e.Var, e.Value, e.Want)
}

// Config is NCCL's configuration as the environment and the version's
// defaults give it. Build one with NewConfig.
type Config struct {
	Version Version
	// IBDisable is NCCL_IB_DISABLE=1: the IB/RoCE transport is off and NCCL
	// falls back to sockets.
	IBDisable bool
	// HCA is NCCL_IB_HCA, parsed.
	HCA HCAFilter
	// GIDIndex is NCCL_IB_GID_INDEX; -1 is automatic selection (the
	// default since 2.21; 0 before).
	GIDIndex int
	// TC and FifoTC are NCCL_IB_TC and NCCL_IB_FIFO_TC, the IP traffic
	// class byte of data and CTS messages; -1 leaves the host's default.
	// FifoTC follows TC when unset and before 2.22.3.
	TC, FifoTC int
	// Timeout and RetryCnt are NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT.
	Timeout, RetryCnt int
	// QPsPerConn is NCCL_IB_QPS_PER_CONNECTION; SplitData is
	// NCCL_IB_SPLIT_DATA_ON_QPS.
	QPsPerConn int
	SplitData  bool
	// MergeNICs is NCCL_IB_MERGE_NICS (from 2.20, default on): the ports
	// of one NIC card are one net device (net_ib.cc ncclIbFindMatchingDev).
	MergeNICs bool
	// MinChannels and MaxChannels are NCCL_MIN_NCHANNELS and
	// NCCL_MAX_NCHANNELS (0 and 64 when unset).
	MinChannels, MaxChannels int
	// MinCTAs and MaxCTAs are NCCL_MIN_CTAS and NCCL_MAX_CTAS (from 2.17,
	// the communicator config's minCTAs and maxCTAs; 0 when unset): NCCL
	// bounds the channels by the smaller maximum and raises them to the
	// larger minimum of the two pairs (connect.cc).
	MinCTAs, MaxCTAs int
	// Algos and Protos are the NCCL_ALGO and NCCL_PROTO tables.
	Algos, Protos Enable
	// AlgoSet and ProtoSet say the variables were given.
	AlgoSet, ProtoSet bool
	// GDRLevel is NCCL_NET_GDR_LEVEL (PXB by default).
	GDRLevel gpu.Path
	// SocketThreads and SocksPerThread are NCCL_SOCKET_NTHREADS and
	// NCCL_NSOCKS_PERTHREAD; Sockets is the sockets per connection.
	SocketThreads, SocksPerThread int
	// BuffSize is NCCL_BUFFSIZE, the Simple protocol's buffer per channel
	// and peer (4 MiB).
	BuffSize int64
	// P2PNetChunk is NCCL_P2P_NET_CHUNKSIZE (128 KiB).
	P2PNetChunk int64
	// ChannelsPerNetPeer is NCCL_NCHANNELS_PER_NET_PEER (2).
	ChannelsPerNetPeer int
	// NetOverhead is NCCL_NET_OVERHEAD in µs, or -1 for the CPU's
	// default (1 µs Intel, 2 µs AMD).
	NetOverhead float64
	// NVLSEnable is NCCL_NVLS_ENABLE: 0 off, 1 on, 2 (default) where the
	// NVSwitch supports multicast. NVLSChannels is NCCL_NVLS_NCHANNELS
	// (0: the architecture's default).
	NVLSEnable, NVLSChannels int
	// NVLSChunk is NCCL_NVLS_CHUNKSIZE, NVLSTreeMaxChunk
	// NCCL_NVLSTREE_MAX_CHUNKSIZE (0: not set; nvlsTuning).
	NVLSChunk, NVLSTreeMaxChunk int64
	// PATEnable is NCCL_PAT_ENABLE (2.23 on): 0 off, 1 on whatever the
	// layout, 2 (default) with one GPU per node (tuning.cc
	// ncclPatEnable).
	PATEnable int
	// PXNDisable is NCCL_PXN_DISABLE; P2PPXNLevel is NCCL_P2P_PXN_LEVEL
	// (0 never, 1 when the peer's NIC is behind another PCIe switch, 2
	// always, the default).
	PXNDisable  bool
	P2PPXNLevel int
	// GDRFlushDisable is NCCL_GDR_FLUSH_DISABLE=1: the IB transport never
	// flushes GPUDirect receives. NetForceFlush is NCCL_NET_FORCE_FLUSH=1:
	// it flushes them on Hopper and later too (from 2.15, only Ampere and
	// earlier need it: Comm.needFlush).
	GDRFlushDisable, NetForceFlush bool
	// P2PNetLL is NCCL_ALLOC_P2P_NET_LL_BUFFERS=1 (from 2.16.5; 2.14 to
	// 2.16.2 read it as NCCL_NCCL_ALLOC_P2P_NET_LL_BUFFERS): point-to-point
	// network connections get an LL buffer, so their small operations may
	// run LL (Comm.p2pProto).
	P2PNetLL bool
	// Env is the environment as given.
	Env map[string]string
	// Notes are remarks on the environment: variables that do not exist
	// or that the twin does not model.
	Notes []string
}

// Sockets returns the sockets one socket-transport connection uses:
// NCCL_SOCKET_NTHREADS × NCCL_NSOCKS_PERTHREAD, or 1 (the control socket,
// driven by the proxy thread) when that is 0, as net_socket.cc does on a
// host that is neither AWS nor GCP.
func (c *Config) Sockets() int {
	return max(1, c.SocketThreads*c.SocksPerThread)
}

// knownVars are the variables NewConfig reads, with what they mean.
var knownVars = []string{
	"NCCL_IB_DISABLE", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_FIFO_TC",
	"NCCL_IB_SL", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_IB_QPS_PER_CONNECTION",
	"NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_NRINGS",
	"NCCL_MAX_NRINGS", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_ALGO", "NCCL_PROTO", "NCCL_NET_GDR_LEVEL", "NCCL_SOCKET_NTHREADS",
	"NCCL_NSOCKS_PERTHREAD", "NCCL_BUFFSIZE", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_NCHANNELS_PER_NET_PEER",
	"NCCL_NET_OVERHEAD", "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY", "NCCL_NVLS_ENABLE",
	"NCCL_NVLS_NCHANNELS", "NCCL_NVLS_CHUNKSIZE", "NCCL_NVLSTREE_MAX_CHUNKSIZE", "NCCL_PXN_DISABLE", "NCCL_P2P_PXN_LEVEL", "NCCL_COLLNET_ENABLE",
	"NCCL_GDR_FLUSH_DISABLE", "NCCL_NET_FORCE_FLUSH", "NCCL_IB_MERGE_NICS",
	"NCCL_ALLOC_P2P_NET_LL_BUFFERS", "NCCL_PAT_ENABLE",
}

// inertVars are accepted and have no effect in the twin.
var inertVars = []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_SOCKET_IFNAME", "NCCL_CROSS_NIC", "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_AR_THRESHOLD", "NCCL_IB_USE_INLINE"}

// KnownVars returns the variables the twin reads or accepts, in a new slice.
func KnownVars() []string { return slices.Concat(knownVars, inertVars) }

// IsKnownVar reports whether the twin reads the variable name.
func IsKnownVar(name string) bool {
	return slices.Contains(knownVars, name) || slices.Contains(inertVars, name)
}

// NewConfig builds the configuration of NCCL version v from env, an
// environment by real variable names. Values are checked as NCCL checks
// them; a bad one is an *EnvError. Variables that do not exist in NCCL
// (NCCL_NCHANNELS) or that the twin does not model are listed in Notes.
func NewConfig(env map[string]string, v Version) (*Config, error) {
	c := &Config{
		Version: v, GIDIndex: -1, TC: -1, FifoTC: -1, Timeout: 20, RetryCnt: 7,
		QPsPerConn: 1, MaxChannels: 64, GDRLevel: gpu.PXB, BuffSize: 1 << 22,
		P2PNetChunk: 1 << 17, ChannelsPerNetPeer: 2, NetOverhead: -1, SocksPerThread: 1,
		NVLSEnable: 2, P2PPXNLevel: 2, PATEnable: 2,
		Env: env,
	}
	// Version-dependent defaults (from the git history of
	// src/transport/net_ib.cc and src/init.cc).
	switch {
	case !v.AtLeast(2, 14, 0):
		c.Timeout = 14
	case !v.AtLeast(2, 23, 0):
		c.Timeout = 18
	}
	c.SplitData = !v.AtLeast(2, 20, 0)
	c.MergeNICs = v.AtLeast(2, 20, 0)
	if !v.AtLeast(2, 21, 0) {
		c.GIDIndex = 0
	}
	c.Algos = newEnable(int(nAlgos), func(int) uint8 { return 1 })
	c.Protos = newEnable(int(nProtos), func(p int) uint8 {
		if Proto(p) == LL128 {
			return 2
		}
		return 1
	})

	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := c.set(k, env[k]); err != nil {
			return nil, err
		}
	}
	if c.MinChannels > c.MaxChannels {
		c.Notes = append(c.Notes, fmt.Sprintf("NCCL_MIN_NCHANNELS=%d is above NCCL_MAX_NCHANNELS=%d: NCCL applies the maximum first, then raises to the minimum", c.MinChannels, c.MaxChannels))
	}
	return c, nil
}

func (c *Config) set(k, val string) error {
	s := strings.TrimSpace(val)
	intIn := func(lo, hi int, want string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, &EnvError{k, val, want}
		}
		return n, nil
	}
	// flag sets *dst from a 0-or-1 variable.
	flag := func(dst *bool) error {
		n, err := intIn(0, 1, "0 or 1")
		*dst = n == 1
		return err
	}
	var err error
	switch k {
	case "NCCL_IB_DISABLE":
		err = flag(&c.IBDisable)
	case "NCCL_IB_HCA":
		c.HCA = ParseHCA(s)
	case "NCCL_IB_GID_INDEX":
		c.GIDIndex, err = intIn(-1, 255, "a GID index from 0 to 255, or -1 for automatic")
	case "NCCL_IB_TC":
		c.TC, err = intIn(-1, 255, "a traffic class byte from 0 to 255 (DSCP = TC>>2)")
	case "NCCL_IB_FIFO_TC":
		if !c.Version.AtLeast(2, 22, 3) {
			c.Notes = append(c.Notes, fmt.Sprintf("NCCL_IB_FIFO_TC exists since NCCL 2.22.3; %s ignores it and sends CTS messages with NCCL_IB_TC", c.Version))
			return nil
		}
		c.FifoTC, err = intIn(-1, 255, "a traffic class byte from 0 to 255")
	case "NCCL_IB_SL":
		_, err = intIn(-1, 15, "a service level from 0 to 15 (no effect on RoCE)")
	case "NCCL_IB_TIMEOUT":
		c.Timeout, err = intIn(1, 31, "an ACK timeout exponent from 1 to 31 (4.096 µs × 2^value)")
	case "NCCL_IB_RETRY_CNT":
		c.RetryCnt, err = intIn(0, 7, "a retry count from 0 to 7")
	case "NCCL_IB_QPS_PER_CONNECTION":
		c.QPsPerConn, err = intIn(1, 128, "1 to 128 queue pairs per connection")
	case "NCCL_IB_SPLIT_DATA_ON_QPS":
		err = flag(&c.SplitData)
	case "NCCL_IB_MERGE_NICS":
		err = flag(&c.MergeNICs)
		c.MergeNICs = c.MergeNICs && c.Version.AtLeast(2, 20, 0)
	case "NCCL_MIN_NCHANNELS", "NCCL_MIN_NRINGS":
		if k == "NCCL_MIN_NRINGS" && c.Env["NCCL_MIN_NCHANNELS"] != "" {
			return nil // the new name wins
		}
		var n int
		n, err = strconv.Atoi(s)
		if err != nil {
			return &EnvError{k, val, "a channel count"}
		}
		c.MinChannels = min(max(n, 0), 64)
	case "NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS":
		if k == "NCCL_MAX_NRINGS" && c.Env["NCCL_MAX_NCHANNELS"] != "" {
			return nil
		}
		var n int
		n, err = strconv.Atoi(s)
		if err != nil {
			return &EnvError{k, val, "a channel count"}
		}
		c.MaxChannels = min(max(n, 1), 64)
	case "NCCL_MIN_CTAS", "NCCL_MAX_CTAS":
		if !c.Version.AtLeast(2, 17, 0) {
			c.Notes = append(c.Notes, k+" exists from NCCL 2.17 and is ignored by this release")
			return nil
		}
		var n int
		n, err = strconv.Atoi(s)
		if err != nil {
			return &EnvError{k, val, "a CTA (channel) count"}
		}
		if n <= 0 {
			// NCCL: "is too low, leaving it set at" the default.
			c.Notes = append(c.Notes, fmt.Sprintf("%s=%d is too low: NCCL leaves the default", k, n))
			return nil
		}
		if k == "NCCL_MIN_CTAS" {
			c.MinCTAs = min(n, 64)
		} else {
			c.MaxCTAs = min(n, 64)
		}
	case "NCCL_ALGO":
		c.AlgoSet = true
		if e := ParseList(s, algoNames[:], &c.Algos); e != nil {
			return &EnvError{k, val, e.Error()}
		}
	case "NCCL_PROTO":
		c.ProtoSet = true
		if e := ParseList(s, protoNames[:], &c.Protos); e != nil {
			return &EnvError{k, val, e.Error()}
		}
	case "NCCL_NET_GDR_LEVEL":
		p, e := gpu.ParsePath(s)
		if e != nil {
			return &EnvError{k, val, "LOC, PIX, PXB, PHB or SYS"}
		}
		c.GDRLevel = p
	case "NCCL_SOCKET_NTHREADS":
		c.SocketThreads, err = intIn(1, 16, "1 to 16 threads")
	case "NCCL_NSOCKS_PERTHREAD":
		c.SocksPerThread, err = intIn(1, 64, "1 to 64 sockets per thread")
	case "NCCL_BUFFSIZE":
		var n int
		n, err = intIn(1<<14, 1<<30, "a buffer size in bytes from 16384 to 1073741824")
		c.BuffSize = int64(n)
	case "NCCL_P2P_NET_CHUNKSIZE":
		var n int
		n, err = intIn(1<<10, 1<<24, "a chunk size in bytes from 1024 to 16777216")
		c.P2PNetChunk = int64(n)
	case "NCCL_NCHANNELS_PER_NET_PEER":
		c.ChannelsPerNetPeer, err = intIn(1, 64, "1 to 64 channels")
	case "NCCL_NET_OVERHEAD":
		var n int
		n, err = intIn(0, 1000000, "an overhead in ns")
		c.NetOverhead = float64(n) / 1000
	case "NCCL_IB_ROCE_VERSION_NUM":
		_, err = intIn(1, 2, "1 or 2")
		if s == "1" {
			c.Notes = append(c.Notes, "NCCL_IB_ROCE_VERSION_NUM=1: the twin always selects RoCE v2 GIDs")
		}
	case "NCCL_IB_ADDR_FAMILY":
		if s != "AF_INET" && s != "AF_INET6" {
			return &EnvError{k, val, "AF_INET or AF_INET6"}
		}
	case "NCCL_NVLS_ENABLE":
		c.NVLSEnable, err = intIn(0, 2, "0, 1 or 2")
	case "NCCL_PAT_ENABLE":
		c.PATEnable, err = intIn(0, 2, "0, 1 or 2")
	case "NCCL_NVLS_NCHANNELS":
		c.NVLSChannels, err = intIn(1, 32, "1 to 32 channels")
	case "NCCL_NVLS_CHUNKSIZE", "NCCL_NVLSTREE_MAX_CHUNKSIZE":
		var n int
		n, err = intIn(1<<10, 1<<24, "a chunk size in bytes from 1024 to 16777216")
		if k == "NCCL_NVLS_CHUNKSIZE" {
			c.NVLSChunk = int64(n)
		} else {
			c.NVLSTreeMaxChunk = int64(n)
		}
	case "NCCL_PXN_DISABLE":
		err = flag(&c.PXNDisable)
	case "NCCL_P2P_PXN_LEVEL":
		c.P2PPXNLevel, err = intIn(0, 2, "0, 1 or 2")
	case "NCCL_GDR_FLUSH_DISABLE":
		err = flag(&c.GDRFlushDisable)
	case "NCCL_NET_FORCE_FLUSH":
		err = flag(&c.NetForceFlush)
	case "NCCL_ALLOC_P2P_NET_LL_BUFFERS":
		err = flag(&c.P2PNetLL)
		if err == nil && c.P2PNetLL && !c.Version.AtLeast(2, 16, 5) {
			// init.cc: NCCL_PARAM(AllocP2pNetLLBuffers,
			// "NCCL_ALLOC_P2P_NET_LL_BUFFERS") from 2.14.3 to 2.16.2, under
			// NCCL_PARAM's own NCCL_ prefix; "ALLOC_P2P_NET_LL_BUFFERS"
			// from 2.16.5.
			c.P2PNetLL = false
			c.Notes = append(c.Notes, k+" is read from NCCL 2.16.5 (2.14-2.16.2 read NCCL_NCCL_ALLOC_P2P_NET_LL_BUFFERS) and is ignored by this release")
		}
	case "NCCL_COLLNET_ENABLE":
		_, err = intIn(0, 1, "0 or 1")
		if s == "1" {
			c.Notes = append(c.Notes, "NCCL_COLLNET_ENABLE=1: the fabric has no SHARP aggregation nodes, so NCCL finds no CollNet and runs without it")
		}
	case "NCCL_NCHANNELS":
		c.Notes = append(c.Notes, "NCCL_NCHANNELS does not exist in NCCL and is ignored: use NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS")
	default:
		if slices.Contains(inertVars, k) {
			return nil
		}
		if strings.HasPrefix(k, "NCCL_") {
			c.Notes = append(c.Notes, k+" is not modelled by the twin and has no effect")
			return nil
		}
		return &EnvError{k, val, "an NCCL_* variable"}
	}
	return err
}

// HCAFilter is a parsed NCCL_IB_HCA: a list of device prefixes (with
// optional ports), '^' to exclude them, '=' to match names exactly.
type HCAFilter struct {
	Set     bool
	Exclude bool
	Exact   bool
	Entries []HCAEntry
}

// HCAEntry is one "dev[:port]" of NCCL_IB_HCA.
type HCAEntry struct {
	Prefix string
	Port   int // -1 for any
}

// ParseHCA reads NCCL_IB_HCA with the rules of net_ib.cc and
// misc/utils.cc parseStringList: a leading '^' excludes, then a leading
// '=' asks for exact names; entries are comma-separated, "dev:port".
func ParseHCA(s string) HCAFilter {
	f := HCAFilter{Set: true}
	if strings.HasPrefix(s, "^") {
		f.Exclude, s = true, s[1:]
	}
	if strings.HasPrefix(s, "=") {
		f.Exact, s = true, s[1:]
	}
	for _, e := range nonEmpty(strings.Split(s, ",")) {
		fields := strings.Split(e, ":")
		if fields[0] == "" {
			continue
		}
		port := -1
		if len(fields) > 1 && fields[1] != "" {
			port = atoiPrefix(fields[1])
		}
		f.Entries = append(f.Entries, HCAEntry{Prefix: fields[0], Port: port})
	}
	return f
}

// atoiPrefix converts the leading digits of s as C's atoi does (0 when
// there are none).
func atoiPrefix(s string) int {
	n, neg, i := 0, false, 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<24; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// Match reports whether device dev, port port passes the filter.
func (f HCAFilter) Match(dev string, port int) bool {
	if !f.Set {
		return true
	}
	in := len(f.Entries) == 0
	for _, e := range f.Entries {
		name := strings.HasPrefix(dev, e.Prefix)
		if f.Exact {
			name = dev == e.Prefix
		}
		if name && (e.Port == -1 || port == -1 || e.Port == port) {
			in = true
			break
		}
	}
	return in != f.Exclude
}
