//go:build slurm

package slurm_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// nodes are the test cluster's compute nodes: one slurmd each, all on
// this host (Debian's slurmd is built with multiple-slurmd support, so
// several run side by side when each has its own NodeName and port).
var nodes = []string{"n1", "n2"}

// cluster is a Slurm controller, one slurmd per node and the munged
// that authenticates them, all children of the test process, configured
// in dir (slurm.conf, state, spool, logs, munge key and socket).
type cluster struct {
	dir   string
	conf  string
	cpus  int      // CPUs of each node
	env   []string // the test's environment plus SLURM_CONF
	procs []*daemon
}

// daemon is one started daemon and the log file of its output.
type daemon struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// errPortInUse is why a daemon could not start when another process
// took its port between the probe and the bind: the caller retries
// with other ports.
var errPortInUse = errors.New("port in use")

// startCluster starts munged, slurmctld and the slurmds in dir. Slurm
// cannot bind port 0 and report the port, so ports are probed free with
// a listener on port 0, which is then closed, and written to slurm.conf;
// another process may take one in between, so a daemon failing with
// "Address already in use" restarts the daemons on fresh ports (up to 3
// attempts).
func startCluster(ctx context.Context, dir string, cpus int) (*cluster, error) {
	c := &cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), cpus: cpus}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	if err := c.startMunge(ctx); err != nil {
		c.stop()
		return nil, err
	}
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = c.startSlurm(ctx); err == nil || !errors.Is(err, errPortInUse) {
			break
		}
		c.stopSlurm()
	}
	if err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// startMunge writes a fresh key and starts munged on a private socket;
// slurm.conf's AuthInfo names the socket, so every Slurm command and
// daemon of the cluster uses it. munged requires the key's directory to
// be private and the socket's to be searchable by all.
func (c *cluster) startMunge(ctx context.Context) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		mode os.FileMode
	}{{"munge", 0o700}, {"run", 0o755}, {"log", 0o755}, {"state", 0o755}, {"spool", 0o755}} {
		if err := os.MkdirAll(filepath.Join(c.dir, d.name), d.mode); err != nil {
			return err
		}
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	keyFile := filepath.Join(c.dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		return err
	}
	sock := c.mungeSocket()
	d, err := c.start(ctx, "munged", "munged", "-F", "--key-file="+keyFile, "--socket="+sock,
		"--pid-file="+filepath.Join(c.dir, "run", "munged.pid"), "--seed-file="+filepath.Join(c.dir, "munge", "seed"),
		"--log-file="+filepath.Join(c.dir, "log", "munged.log"))
	if err != nil {
		return err
	}
	return poll(ctx, 20*time.Second, "munged's socket", func() (bool, error) {
		if err := d.exited(); err != nil {
			return false, err
		}
		return exec.Command("munge", "-S", sock, "-n").Run() == nil, nil
	})
}

func (c *cluster) mungeSocket() string { return filepath.Join(c.dir, "run", "munge.sock") }

// startSlurm writes slurm.conf with fresh ports, starts slurmctld and the
// slurmds in the foreground and waits until sinfo shows every node idle.
func (c *cluster) startSlurm(ctx context.Context) error {
	ports, err := freePorts(1 + len(nodes))
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.conf, []byte(c.config(ports)), 0o644); err != nil {
		return err
	}
	ctld, err := c.start(ctx, "slurmctld", "slurmctld", "-D", "-i", "-f", c.conf)
	if err != nil {
		return err
	}
	if err := c.waitResponds(ctx, ctld); err != nil {
		return err
	}
	var ds []*daemon
	for _, n := range nodes {
		if err := os.MkdirAll(filepath.Join(c.dir, "spool", n), 0o755); err != nil {
			return err
		}
		d, err := c.start(ctx, "slurmd-"+n, "slurmd", "-D", "-N", n, "-f", c.conf)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	return c.waitIdle(ctx, append(ds, ctld))
}

// config is the cluster's slurm.conf: no cgroups (proctrack/linuxproc,
// task/none), no accounting, state and spool in the test's directory,
// KillWait 10 s, and finished jobs kept 10 minutes for scontrol.
// cred_expire (22.05's AuthInfo option) is shortened from 120 s because
// it also delays a requeued job's restart by that much.
func (c *cluster) config(ports []int) string {
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	var b strings.Builder
	fmt.Fprintf(&b, `ClusterName=mltest
SlurmctldHost=%s(127.0.0.1)
SlurmctldPort=%d
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%s,cred_expire=10
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%[4]s/state
SlurmdSpoolDir=%[4]s/spool/%%n
SlurmctldPidFile=%[4]s/run/slurmctld.pid
SlurmdPidFile=%[4]s/run/slurmd-%%n.pid
SlurmctldLogFile=%[4]s/log/slurmctld.log
SlurmdLogFile=%[4]s/log/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=10
MinJobAge=600
JobRequeue=1
`, host, ports[0], c.mungeSocket(), c.dir)
	for i, n := range nodes {
		fmt.Fprintf(&b, "NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=1000 State=UNKNOWN\n",
			n, host, ports[1+i], c.cpus)
	}
	b.WriteString("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n")
	return b.String()
}

// freePorts returns n distinct ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// start starts a daemon whose output goes to dir/log/name.out.
func (c *cluster) start(ctx context.Context, name, bin string, args ...string) (*daemon, error) {
	d := &daemon{name: name, log: filepath.Join(c.dir, "log", name+".out"), done: make(chan struct{})}
	f, err := os.Create(d.log)
	if err != nil {
		return nil, err
	}
	d.cmd = exec.Command(bin, args...)
	d.cmd.Env, d.cmd.Stdout, d.cmd.Stderr = c.env, f, f
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { _ = d.cmd.Wait(); f.Close(); close(d.done) }()
	c.procs = append(c.procs, d)
	return d, nil
}

// exited reports whether d has exited and, if so, why, from its log.
func (d *daemon) exited() error {
	select {
	case <-d.done:
	default:
		return nil
	}
	out, _ := os.ReadFile(d.log)
	if strings.Contains(string(out), "Address already in use") {
		return fmt.Errorf("%s: %w", d.name, errPortInUse)
	}
	return fmt.Errorf("%s exited: %s", d.name, tail(string(out), 15))
}

// waitResponds waits until the controller answers scontrol ping.
func (c *cluster) waitResponds(ctx context.Context, ctld *daemon) error {
	return poll(ctx, 30*time.Second, "slurmctld", func() (bool, error) {
		if err := ctld.exited(); err != nil {
			return false, err
		}
		out, _ := c.run(ctx, "scontrol", "ping")
		return strings.Contains(out, "is UP"), nil
	})
}

// waitIdle waits until sinfo shows every node idle.
func (c *cluster) waitIdle(ctx context.Context, ds []*daemon) error {
	return poll(ctx, 60*time.Second, "every node idle", func() (bool, error) {
		for _, d := range ds {
			if err := d.exited(); err != nil {
				return false, err
			}
		}
		out, _ := c.run(ctx, "sinfo", "-h", "-N", "-o", "%N %t")
		return strings.Count(out, " idle") == len(nodes), nil
	})
}

// run runs a Slurm command of the cluster and returns its combined output.
func (c *cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out), err
}

// stopSlurm cancels every job, waits (up to 30 s) for them to end, and
// stops the Slurm daemons; munged keeps running.
func (c *cluster) stopSlurm() {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if _, err := c.run(ctx, "scancel", "--user=root"); err == nil {
		_ = poll(ctx, 30*time.Second, "no jobs", func() (bool, error) {
			out, err := c.run(ctx, "squeue", "-h")
			return err == nil && strings.TrimSpace(out) == "", nil
		})
	}
	var keep []*daemon
	for _, d := range c.procs {
		if d.name == "munged" {
			keep = append(keep, d)
			continue
		}
		d.kill()
	}
	c.procs = keep
}

// stop stops every daemon (Slurm's first, then munged).
func (c *cluster) stop() {
	c.stopSlurm()
	for _, d := range c.procs {
		d.kill()
	}
	c.procs = nil
}

// kill sends SIGTERM to the daemon's process group, then SIGKILL after 10 s.
func (d *daemon) kill() {
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-d.done
	}
}

// poll calls cond every 200 ms until it is true, errors, or timeout passes.
func poll(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: no luck within %v", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
