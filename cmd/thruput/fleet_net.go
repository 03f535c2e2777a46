package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/thruput/thruput/internal/fleet"
	"github.com/thruput/thruput/internal/lifecycle"
	"github.com/thruput/thruput/internal/usage"
)

func newFleetNetCmd(a *app) *cobra.Command {
	var pairs string
	var port int
	var concurrent bool
	c := fleetCommand(a, &cobra.Command{
		Use:   "net [flags] [-- NET-CLIENT-FLAGS...]",
		Short: "Measure the network between every pair of hosts, one test per host at a time",
		Long: `Every ordered pair of hosts (or --pairs star:HOST, ring, or CLIENT,...:SERVER)
is measured with thruput net client on the first against a one-test server
on the second; flags after -- go to net client (-t, -P, -R, -u -b ...; the
port is fleet net's own --port). Tests that share a
host never run at once: they would share its link and both figures would
be wrong; independent pairs run side by side. Each pair is saved as a run
labelled from=, to= and fleet=ID, and a host x host matrix of Mbit/s is
printed; thruput report fleet=ID draws it as a heat map.

With --concurrent the clients of each server run at once into it (one
net server --max-clients N), to load a server, an access point or an
uplink as many users do; with star:HOST only the clients into HOST run.
Printed: each client's Mbit/s, the aggregate and Jain's fairness index.`,
		Example: `  thruput fleet net --hosts pi1,pi2,pi3
  thruput fleet net --inventory lab.yaml --pairs star:server -- -t 10 -P 4
  thruput fleet net --inventory lab.yaml --pairs star:nas --concurrent -- -t 30
  thruput fleet net --hosts pi1,pi2,pi3 --pairs pi1,pi2:pi3 --concurrent`,
	}, true, func(ctx context.Context, fl *fleet.Fleet, hosts []fleet.Host, args []string) (fleet.Outcome, error) {
		ps, err := fleet.Pairs(hosts, pairs)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		// The address is a placeholder: each pair's client gets its own.
		client, err := checkRemote(append([]string{"net", "client", "HOST"}, args...))
		if err != nil {
			return nil, err
		}
		if client.Flags().Changed("port") {
			return nil, usage.Errorf("-p/--port after -- would be the clients' alone: fleet net's own --port (-p, before --) sets the port of the servers and their clients")
		}
		o := fleet.NetOptions{ClientArgs: args, Port: port}
		var out fleet.Outcome
		if concurrent {
			res := fleet.ConcurrentRuns{Hosts: hosts}
			res.Groups, res.HostErrs = fl.NetConcurrent(ctx, hosts, fleet.Groups(fleet.Into(hosts, ps, pairs)), o)
			out = res
		} else {
			res := fleet.NetRuns{Hosts: hosts}
			res.Pairs, res.HostErrs = fl.Net(ctx, hosts, ps, o)
			out = res
		}
		// One label ties the pairs together: thruput report fleet=ID
		// draws them as a host x host heat map.
		id := lifecycle.NewID()
		for _, d := range out.Runs() {
			d.Labels["fleet"] = id
		}
		return out, nil
	})
	c.Flags().StringVar(&pairs, "pairs", "all", "which pairs: all (every ordered pair), ring, star:HOST, or CLIENT,...:SERVER")
	c.Flags().IntVarP(&port, "port", "p", 5201, "the servers' TCP port on the hosts")
	c.Flags().BoolVar(&concurrent, "concurrent", false, "run the clients of each server at once into it; print each client's figure, the aggregate and Jain's fairness index")
	return c
}
