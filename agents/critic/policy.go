package critic

import "github.com/the-loop/the-loop/config"

// Config is the operator's critic policy (the critics: and reviews: keys)
// and Critic one configured critic: package config owns and checks them.
type (
	Config  = config.CriticPolicy
	Critic  = config.Critic
	Reviews = config.Reviews
)
