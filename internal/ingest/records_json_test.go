package ingest

import (
	"strings"
	"testing"
)

// The JSON records of journald (`journalctl -o json`), Google Cloud
// Logging and an Elastic or Loki store give the line in their text field,
// its columns where it stands in the record; the key alone, without a
// companion of its store, is anyone's JSON and stays a line. SYNTHETIC
// records with the field names systemd.journal-fields(7), Cloud Logging's
// LogEntry and Elastic's ECS document; the lines in them are real (as in
// TestRecordsUnwrap).
func TestJSONRecordKinds(t *testing.T) {
	const nccl = "gpu01:1:2 [0] NCCL INFO Using network IB"
	for _, c := range []struct{ in, want, at string }{
		{`{"__CURSOR":"s=739ad4;i=4ece7;b=6c7c60;m=1d8e4a4;t=61a1b2c3d4e5f;x=9f","__REALTIME_TIMESTAMP":"1714557600123456","__MONOTONIC_TIMESTAMP":"30991524","_HOSTNAME":"gpu01","SYSLOG_IDENTIFIER":"python","_PID":"1234","MESSAGE":"` + nccl + `"}`, nccl, nccl},
		{`{"insertId":"1x2y","textPayload":"     rx_prio3_pause: 7\n","resource":{"type":"k8s_container","labels":{"pod_name":"w-0"}},"timestamp":"2024-05-01T10:00:00.123Z","severity":"INFO"}`, "     rx_prio3_pause: 7", "     rx"},
		{`{"@timestamp":"2024-05-01T10:00:00.123Z","message":"` + nccl + `","host":{"name":"gpu01"}}`, nccl, nccl},
		{`{"__CURSOR":"s=1","MESSAGE":[103,112,117]}`, "", ""}, // journald's bytes of a line that is not UTF-8
		{`{"message":"no store's key beside it"}`, "", ""},
		{`{"level":"info","msg":"x","time":"2024-05-01T10:00:00Z"}`, "", ""},
	} {
		got := readAllLines(c.in)
		want, col := c.want, strings.Index(c.in, c.at)+1
		if want == "" {
			want, col = c.in, 1
		}
		if len(got) != 1 || got[0].Text != want || got[0].Col(0) != col {
			t.Errorf("%s:\n got %+v\n want %q at column %d", c.in, got, want, col)
		}
	}
}
