package ingest

import "testing"

// A NET/IB WARN about a request to a peer ("req 0/1 tag 0 peer
// 10.10.23.6<58683> collective mismatch error", NVIDIA/nccl#969, an
// excerpt that begins past the device list) is data moving, not the IB
// transport stopping at init; and a WARN set in Markdown bold (#268) loses
// the closing "**" with its opening one.
func TestCorpusDataPathWarns(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.14.3-pdsh-ip-prefix-ib-collective-mismatch-nccl969.txt")
	if l.IBInitWarns.Count != 0 || len(l.Warnings) != 1 || l.Warnings[0].Host != "so-ucloud-10-10-23-10" || l.Warnings[0].Result != 5 {
		t.Errorf("init warns %d, warnings %+v", l.IBInitWarns.Count, l.Warnings)
	}
	b := ncclLog(t, "nccl-log/nccl-2.4.7-markdown-bold-socket-message-truncated-nccl268.txt")
	if len(b.Warnings) != 1 || b.Warnings[0].Host != "hvd1" || b.Warnings[0].Message != "NET/Socket : message truncated : receiving 696320 bytes instead of 32768" {
		t.Errorf("bold warning %+v", b.Warnings)
	}
}

// NCCL 2.7.8's rank 0 prints its version without a prefix; in a log
// whose lines name one host (NVIDIA/nccl#1129, node08's ranks), it is
// that host's, so that the versions of a job's per-host files compare.
func TestCorpusBareVersionSoleHost(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.7.8-docker-ib-bare-version-one-host-nccl1129.txt")
	if len(l.Versions) != 1 || l.Versions[0].Host != "node08" || l.Versions[0].Version != "2.7.8+cuda11.1" || l.Versions[0].Evidence.Line != 7 {
		t.Errorf("versions %+v", l.Versions)
	}
}

// NCCL 2.0 to 2.2 printed no "NCCL" before the level ("host:pid:tid [dev]
// INFO msg", "... [dev] file:line WARN msg"): such logs were no input at
// all. Other tools' INFO and WARN lines, without NCCL's prefix, stay
// unread (SYNTHETIC lines below).
func TestCorpusLegacyPrefix(t *testing.T) {
	for _, c := range []struct {
		rel, host, network string
		lines              int
	}{
		{"nccl-log/nccl-2.0-2.2-no-nccl-marker-socket-sideband-horovod666.txt", "seyun", "Socket", 3},
		{"nccl-log/nccl-2.0-2.2-no-nccl-marker-ib-mlx4-horovod489.txt", "nmyjs-202-75", "IB", 12},
		{"nccl-log/nccl-2.0-2.2-no-nccl-marker-warn-libibverbs-bold-horovod98.txt", "admin-pc", "Socket", 10},
	} {
		l := ncclLog(t, c.rel)
		if l.Lines() != c.lines || len(l.Hosts()) != 1 || l.Hosts()[0] != c.host || len(l.Networks) == 0 || l.Networks[0].Name != c.network {
			t.Errorf("%s: %d lines, hosts %v, networks %+v", c.rel, l.Lines(), l.Hosts(), l.Networks)
		}
	}
	if l := ncclLog(t, "nccl-log/nccl-2.0-2.2-no-nccl-marker-warn-libibverbs-bold-horovod98.txt"); l.VerbsMissing.Count != 1 {
		t.Errorf("libibverbs WARN read %d times", l.VerbsMissing.Count)
	}
	for _, s := range []string{
		"2024-01-02 10:00:01 INFO Using internal Network Socket",
		"[1] INFO NET : Using interface eth0:10.0.0.1<0>",
		"worker-1 [0] INFO Using internal Network IB",
		"host:12:x [0] INFO Using internal Network IB",
		"host:1:2 [0] WARN Failed to open libibverbs.so[.1]",
	} {
		if _, _, _, ok := legacySplit(s); ok {
			t.Errorf("read as NCCL 2.0-2.2: %q", s)
		}
	}
}
