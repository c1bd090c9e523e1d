package ingest

import "testing"

// TestDescribedError: PyTorch's description of a result (getNcclErrorDetailStr:
// "ncclInternalError: Internal check failed.") with its last error under it,
// without PyTorch's "NCCL error in:" line (an excerpt cut below it, or an
// application printing the same, NVIDIA/nccl#1837), is an error NCCL
// returned: the last error is its WARN, with the result the description
// names; a tag before the name ("[trainer0|0]:"), or blanks and tabs, are
// on the lines after it too. The description alone, two descriptions and
// nothing else (the second is no last error), the name inside prose, or a
// launcher's or the application's error line under the description (no
// "Last error:" and not NCCL's own text) are none, and their lines stay unrecognised (input.unrecognized), not read as
// an NCCL log that says nothing. Lines as in that thread; the others
// synthetic.
func TestDescribedError(t *testing.T) {
	for _, c := range []struct {
		text, msg string
		result    int
	}{
		{"[trainer0|0]:ncclInternalError: Internal check failed.\n[trainer0|0]:Last error:\n[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)\n",
			"ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)", 3},
		{"ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\nLast error: socketStartConnect: Connect to 10.0.0.1<1234> failed : Connection refused\n",
			"socketStartConnect: Connect to 10.0.0.1<1234> failed : Connection refused", 2},
		{"\tncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n\tLast error:\n\tsocketStartConnect: Connect to 10.0.0.1<1234> failed : Connection refused\n",
			"socketStartConnect: Connect to 10.0.0.1<1234> failed : Connection refused", 2},
		{"ncclInternalError: Internal check failed.\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n", "", 0},
		{"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nsocketProgress: Connection closed by remote peer h<1>\n", "", 0},
		{"ncclInternalError: Internal check failed.\n", "", 0},
		{"the job said ncclInternalError: Internal check failed.\nLast error:\nx failed\n", "", 0},
		{"ncclInternalError: Internal check failed.\nsrun: error: node12: task 3: Exited with exit code 1\n", "", 0},
		{"ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nERROR: training step failed, retrying\n", "", 0},
	} {
		res := checkArtifact(t, []byte(c.text))
		var got []Warning
		for _, a := range res.Artifacts {
			if l, ok := a.(*NCCLLog); ok {
				got = append(got, l.Warnings...)
			}
		}
		if c.msg == "" {
			if len(res.Artifacts) != 0 {
				t.Errorf("artifacts %v (warnings %+v) from\n%s", res.Artifacts, got, c.text)
			}
			continue
		}
		if len(got) != 1 || got[0].Message != c.msg || got[0].Result != c.result || got[0].Raised.Line != 1 || got[0].Chain != nil {
			t.Errorf("warnings %+v from\n%s", got, c.text)
		}
	}
}
