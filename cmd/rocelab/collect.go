package main

import (
	"fmt"
	"os"
	"time"

	"github.com/safchain/ethtool"
	"github.com/spf13/cobra"

	"rocelab/internal/collect"
)

func newCollectCmd() *cobra.Command {
	var (
		interval time.Duration
		timeout  time.Duration
		out      string
		root     string
		envFile  string
	)
	cmd := &cobra.Command{
		Use:   "collect [--interval 10s] [--out FILE.tar.gz] [--env FILE] [--root DIR]",
		Short: "Gather, read-only, what diagnose needs from this host into one archive",
		Long: `collect reads, without changing anything, the RDMA devices under
/sys/class/infiniband (ports, hw_counters, counters, GID tables with types and
netdevs), ethtool -S of the RDMA netdevs (through the ethtool ioctl, else the
ethtool command), the DCQCN sysfs settings and forced traffic classes, the bonds
of /proc/net/bonding that are or hold an RDMA netdev, /proc/modules, mlnx_qos,
ibv_devinfo -v, rdma link, ip -d link, ip -s -s link of the RDMA netdevs, lspci -vv, nvidia-smi (topo -m, -q, nvlink -s), devlink health
show, ethtool -i/-a/--show-fec/-m, mlxconfig query and mlxlink -c of each RDMA
device (or mstflint's mstconfig and mstlink), the kernel's RDMA lines, and the
NCCL settings in --env FILE. Counters are taken twice, --interval apart, each after
a date line, so diagnose judges rates over the window. Every source has its own
timeout; a missing tool or device is recorded in the archive, never fatal.

  rocelab collect --interval 10s --out gpu01.tar.gz
  rocelab diagnose gpu01.tar.gz gpu02.tar.gz

Exit status: 0 archive written, 2 bad usage or the archive could not be written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if interval < 0 || timeout <= 0 {
				return usageError("--interval must be 0 or positive and --timeout positive")
			}
			if out == "" {
				h, _ := os.Hostname()
				out = fmt.Sprintf("rocelab-collect-%s.tar.gz", h)
			}
			f, err := os.Create(out)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			opts := collect.Options{Root: root, Interval: interval, Timeout: timeout, EnvFile: envFile}
			if root == "" {
				if e, err := ethtool.NewEthtool(); err == nil {
					defer e.Close()
					opts.EthtoolStats = e.Stats
				}
			}
			meta, err := collect.Collect(cmd.Context(), opts, f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: host %s, %d RDMA devices, %d sources missing\n", out, meta.Host, len(meta.Devices), len(meta.Missing))
			for _, m := range meta.Missing {
				fmt.Fprintf(cmd.ErrOrStderr(), "  missing: %s\n", m)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&interval, "interval", 10*time.Second, "time between the two counter snapshots (0: one snapshot)")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "time limit of each source")
	cmd.Flags().StringVarP(&out, "out", "o", "", "archive to write (default rocelab-collect-<host>.tar.gz)")
	cmd.Flags().StringVar(&root, "root", "", "read /sys, /proc and /etc under this directory (a fixture tree, another host's copy) instead of /; commands then come only from its own bin directories, never this host's")
	cmd.Flags().StringVar(&envFile, "env", "", "file of NCCL settings to include (env file, job script, manifest)")
	return cmd
}
