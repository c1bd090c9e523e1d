package exporter

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// SYNTHETIC netlink messages, laid out as the kernel's nldev.c writes them
// (fill_nldev_handle, then the nested RDMA_NLDEV_ATTR_STAT_HWCOUNTERS
// table of entries, each a NUL-terminated name and a u64 preceded by a pad
// attribute when the u64 would be misaligned, nla_put_u64_64bit).

func u64Attr(typ uint16, v uint64) []byte {
	return append(attr(0, nil), attr(typ, binary.NativeEndian.AppendUint64(nil, v))...) // pad, value
}

func statReply(seq uint32, counters map[string]uint64, order []string) []byte {
	var table []byte
	for _, n := range order {
		e := append(attr(nldevAttrHWCounterNam, append([]byte(n), 0)), u64Attr(nldevAttrHWCounterVal, counters[n])...)
		table = append(table, attr(nldevAttrHWCounter|0x8000, e)...)
	}
	body := append(appendU32Attr(nil, nldevAttrDevIndex, 3), attr(nldevAttrDevName, []byte("mlx5_0\x00"))...)
	body = appendU32Attr(body, nldevAttrPortIndex, 1)
	body = append(body, attr(nldevAttrHWCounters|0x8000, table)...)
	return finishMessage(append(nlHeader(nil, nldevType(nldevCmdStatGet), 0, seq), body...))
}

func errReply(seq uint32, errno syscall.Errno) []byte {
	b := nlHeader(nil, unix.NLMSG_ERROR, 0, seq)
	b = binary.NativeEndian.AppendUint32(b, uint32(-int32(errno)))
	return finishMessage(append(b, make([]byte, 16)...)) // the request's header
}

func TestParseStatReply(t *testing.T) {
	want := map[string]uint64{"np_cnp_sent": 12, "rp_cnp_handled": 1 << 40, "out_of_sequence": 0, "req_transport_retries_exceeded": 1}
	order := []string{"out_of_sequence", "np_cnp_sent", "rp_cnp_handled", "req_transport_retries_exceeded"}
	// A stale answer to an earlier request comes first and is skipped.
	b := append(statReply(6, map[string]uint64{"np_cnp_sent": 99}, []string{"np_cnp_sent"}), statReply(7, want, order)...)
	got := map[string]uint64{}
	var names []string
	done, err := parseStatReply(b, 7, func(n []byte, v uint64) {
		got[string(n)] = v
		names = append(names, string(n))
	})
	if err != nil || !done {
		t.Fatalf("done %v err %v", done, err)
	}
	if strings.Join(names, ",") != strings.Join(order, ",") {
		t.Errorf("names %v, want %v", names, order)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	// Errors: a driver without stats is unsupported (sysfs then), a gone
	// device is stale, a truncated message an error.
	if _, err := parseStatReply(errReply(8, syscall.EOPNOTSUPP), 8, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("EOPNOTSUPP: %v", err)
	}
	if _, err := parseStatReply(errReply(8, syscall.ENODEV), 8, nil); !errors.Is(err, errStale) {
		t.Errorf("ENODEV: %v", err)
	}
	full := statReply(9, want, order)
	if _, err := parseStatReply(full[:len(full)-5], 9, func([]byte, uint64) {}); err == nil {
		t.Error("truncated message accepted")
	}
	// The device dump.
	idx := map[string]uint32{}
	dev := func(i uint32, name string) []byte {
		body := append(appendU32Attr(nil, nldevAttrDevIndex, i), attr(nldevAttrDevName, append([]byte(name), 0))...)
		return finishMessage(append(nlHeader(nil, nldevType(nldevCmdGet), unix.NLM_F_MULTI, 4), body...))
	}
	dump := append(append(dev(0, "mlx5_0"), dev(1, "mlx5_1")...), finishMessage(nlHeader(nil, unix.NLMSG_DONE, unix.NLM_F_MULTI, 4))...)
	if done, err := parseDeviceDump(dump, 4, idx); !done || err != nil || idx["mlx5_1"] != 1 || len(idx) != 2 {
		t.Errorf("dump: done %v err %v index %v", done, err, idx)
	}
}

// The request a STAT_GET sends: RDMA_NL_GET_TYPE(NLDEV, STAT_GET) = 5137,
// the device and port indexes.
func TestStatRequest(t *testing.T) {
	b := statRequest(nil, 42, 3, 1)
	ne := binary.NativeEndian
	if len(b) != 32 || ne.Uint32(b) != 32 || ne.Uint16(b[4:]) != 5137 || ne.Uint16(b[6:]) != unix.NLM_F_REQUEST || ne.Uint32(b[8:]) != 42 {
		t.Fatalf("request % x", b)
	}
	var dev, port uint32
	walkAttrs(b[16:], func(t uint16, v []byte) {
		switch t {
		case nldevAttrDevIndex:
			dev = ne.Uint32(v)
		case nldevAttrPortIndex:
			port = ne.Uint32(v)
		}
	})
	if dev != 3 || port != 1 {
		t.Errorf("dev %d port %d", dev, port)
	}
}

// TestNetlinkMatchesSysfs: on a host with RDMA devices, every counter
// netlink gives for a port is the file of the same name under hw_counters/
// (within what moved between the two reads). Skipped where there are none
// (CI).
func TestNetlinkMatchesSysfs(t *testing.T) {
	ents, _ := os.ReadDir("/sys/class/infiniband")
	if len(ents) == 0 {
		t.Skip("no RDMA devices on this host")
	}
	n, err := NewNetlinkRDMA()
	if err != nil {
		t.Skipf("RDMA netlink unavailable: %v", err)
	}
	defer n.Close()
	dev := ents[0].Name()
	count := 0
	err = n.HWCounters(dev, "1", func(name []byte, v uint64) {
		count++
		b, err := os.ReadFile("/sys/class/infiniband/" + dev + "/ports/1/hw_counters/" + string(name))
		if err != nil {
			t.Errorf("%s: netlink has %s, sysfs not: %v", dev, name, err)
			return
		}
		if f, err := ParseValue(b); err != nil || f < v {
			t.Errorf("%s %s: sysfs %q, netlink %d", dev, name, b, v)
		}
	})
	if err != nil && !errors.Is(err, ErrUnsupported) {
		t.Fatal(err)
	}
	t.Logf("%s port 1: %d counters over netlink", dev, count)
}

func FuzzParseStatReply(f *testing.F) {
	f.Add(statReply(1, map[string]uint64{"np_cnp_sent": 3}, []string{"np_cnp_sent"}))
	f.Add(errReply(1, syscall.EINVAL))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		_, err := parseStatReply(b, 1, func(name []byte, _ uint64) {
			n++
			if len(name) == 0 || len(name) > len(b) {
				t.Fatalf("name %q", name)
			}
		})
		if err != nil && n > 0 && !strings.Contains(err.Error(), "RDMA netlink") && !strings.Contains(err.Error(), "netlink message") {
			t.Fatalf("error %v", err)
		}
		_, _ = parseDeviceDump(b, 1, map[string]uint32{})
	})
}
