package lab

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
)

// This file decides when a plan's candidate config takes effect, as Kafka applies each kind of
// config:
//
//   - Controller-side static configs (auto.leader.rebalance.enable,
//     leader.imbalance.check.interval.seconds, broker.session.timeout.ms, and the KIP-1358 /
//     PR #22934 configs, which the PR lists as static with the lifecycle of
//     leader.imbalance.check.interval.seconds) are read from the controller's server.properties
//     when its process starts: ControllerServer.startup builds QuorumController.Builder from
//     KafkaConfig (setLeaderImbalanceCheckIntervalNs), and kafka-configs.sh --alter refuses them
//     (DynamicBrokerConfig.validateConfigs: "Cannot update these configs dynamically"). They take
//     effect once a controller restarted with them is the active one: a plan's
//     roll-controllers step.
//   - Dynamic cluster-wide configs (min.insync.replicas, unclean.leader.election.enable, the
//     replication throttles), set with kafka-configs.sh --alter --entity-default, take effect at
//     once: from the start of the candidate's run.
//   - Model parameters (broker.*, workload.*, kraftlab.*) describe the world, not a config an
//     operator rolls out: from the start.

// controllerStatic says whether a config is a controller-side static config, which takes
// effect only when the active controller restarts with it.
func controllerStatic(name string) bool {
	def, ok := config.Lookup(name)
	if !ok || def.Scope != config.Cluster {
		return false
	}
	switch def.Source {
	case config.KIP1358, config.PR22934:
		return true // static in the PR; the model's engine also lets a scenario set them live
	case config.Kafka:
		// broker.heartbeat.interval.ms is the brokers' too (they heartbeat at it).
		return !def.Dynamic && name != config.BrokerHeartbeatIntervalMs
	}
	return false
}

// rollout is how the candidate reaches a plan's cluster when the plan rolls the controllers.
type rollout struct {
	// static is the controllers' server.properties with the candidate: what each restarted
	// controller reads.
	static config.Values
	// names are the candidate's controller-side static configs.
	names []string
}

// planCandidate splits the candidate's overrides for a plan: the run's file (doc with the
// overrides that hold from the start) and, when the plan rolls the controllers and the
// candidate has controller-side static configs, the rollout that applies those at each
// controller's restart. Without a roll-controllers step the whole candidate holds from the
// start, as if rolled out before the plan. doc must be a valid cluster-mode file (parsed by
// the caller), read by read.
func planCandidate(doc []byte, read reader, plan *Plan, candidate Policy) ([]byte, *rollout, error) {
	full, err := applyChecked(doc, candidate.Overrides, read)
	if err != nil {
		return nil, nil, inputErrorf("candidate %q: %w", candidate.Name, err)
	}
	var atStart []Override
	var static []string
	for _, o := range candidate.Overrides {
		if controllerStatic(o.Name) {
			if !slices.Contains(static, o.Name) {
				static = append(static, o.Name)
			}
		} else {
			atStart = append(atStart, o)
		}
	}
	if !plan.rollsControllers() || len(static) == 0 {
		return full, nil, nil
	}
	s, err := read(full)
	if err != nil {
		return nil, nil, err
	}
	d, err := applyChecked(doc, atStart, read)
	if err != nil {
		return nil, nil, inputErrorf("candidate %q: %w", candidate.Name, err)
	}
	return d, &rollout{static: s.Cluster.Spec.Static, names: static}, nil
}

// rollsControllers says whether the plan has a roll-controllers step.
func (p *Plan) rollsControllers() bool {
	return slices.ContainsFunc(p.Steps, func(s PlanStep) bool { return s.Kind == StepRollControllers })
}
