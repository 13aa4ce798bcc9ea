package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/platen-print/platen/internal/config"
	linktoken "github.com/platen-print/platen/internal/downloads/token"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/server"
	"github.com/platen-print/platen/internal/storage"
	"github.com/platen-print/platen/internal/webhooks"
)

func newAdmin(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Set up a shop; manage teams, stores and their webhooks, API tokens, operator accounts, prints and the link-signing key (works while serve runs)",
	}
	cfg.StorageFlags(cmd.PersistentFlags())
	cmd.AddCommand(newBootstrap(cfg), newTeamCmd(cfg), newStoreCmd(cfg), newTokenCmd(cfg), newPrintCmd(cfg), newOperatorCmd(cfg), newKeysCmd(cfg))
	return cmd
}

// printJSON writes v as one JSON object on stdout.
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newBootstrap(cfg *config.Config) *cobra.Command {
	var team, store, webhookURL string
	var allowPrivate bool
	cmd := &cobra.Command{
		Use:   "bootstrap --team NAME --store STORE_ID [--webhook-url URL [--allow-private-network]]",
		Short: "Create the team and store if absent and print a new store-bound API token as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if team == "" || store == "" {
				return errors.New("--team and --store are required")
			}
			var hook *string
			if cmd.Flags().Changed("webhook-url") || webhookURL != "" {
				if err := checkWebhookURL(cmd.Context(), webhookURL, allowPrivate); err != nil {
					return err
				}
				hook = &webhookURL
			}
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				out, err := db.Bootstrap(ctx, team, store, hook)
				if err != nil {
					return err
				}
				return printJSON(out)
			})
		},
	}
	cmd.Flags().StringVar(&team, "team", "", "team name")
	cmd.Flags().StringVar(&store, "store", "", "store id to create or reuse")
	webhookURLFlags(cmd.Flags(), &webhookURL, &allowPrivate)
	return cmd
}

// webhookURLFlags registers --webhook-url and --allow-private-network, the
// latter read from PLATEN_ALLOW_PRIVATE_NETWORK too, like serve's: a
// machine whose serve may deliver to its private network sets it once for
// both.
func webhookURLFlags(fs *pflag.FlagSet, hookURL *string, allowPrivate *bool) {
	fs.StringVar(hookURL, "webhook-url", "", "the store's webhook endpoint: an http or https URL whose host resolves to a public address")
	fs.BoolVar(allowPrivate, "allow-private-network", false,
		"accept a webhook URL on a loopback, private, link-local or metadata address, or whose host does not resolve, "+
			"as serve --allow-private-network does (deliveries reach it only from a serve started so)")
}

// checkWebhookURL makes the check PUT /api/v1/stores/{store_id}/webhook
// makes (webhooks.CheckURL with the fetcher's address rules, as serve sets
// them up), so that the command refuses what the API refuses, in the same
// words, and accepts what it accepts.
func checkWebhookURL(ctx context.Context, raw string, allowPrivateNetwork bool) error {
	reachable := fetch.New(fetch.Config{AllowPrivateNetwork: allowPrivateNetwork}).CheckURL
	if err := webhooks.CheckURL(ctx, raw, reachable); err != nil {
		return fmt.Errorf("--webhook-url: %w", err)
	}
	return nil
}

func newTeamCmd(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{Use: "team", Short: "Create and list teams"}
	cmd.AddCommand(&cobra.Command{
		Use: "create NAME", Short: "Create a team", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				t, err := db.CreateTeam(ctx, args[0])
				if err != nil {
					return err
				}
				return printJSON(t)
			})
		},
	}, &cobra.Command{
		Use: "list", Short: "List teams", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				teams, err := db.ListTeams(ctx)
				if err != nil {
					return err
				}
				return printJSON(teams)
			})
		},
	})
	return cmd
}

// resolveTeam accepts a team's id or name.
func resolveTeam(ctx context.Context, db *storage.DB, ref string) (int, error) {
	if ref == "" {
		return 0, nil
	}
	if id, err := strconv.Atoi(ref); err == nil {
		return id, nil
	}
	t, err := db.TeamByName(ctx, ref)
	if err != nil {
		return 0, err
	}
	return t.ID, nil
}

func newStoreCmd(cfg *config.Config) *cobra.Command {
	var team string
	cmd := &cobra.Command{Use: "store", Short: "Create and list stores"}
	cmd.PersistentFlags().StringVar(&team, "team", "", "team id or name")
	cmd.AddCommand(&cobra.Command{
		Use: "create --team TEAM STORE_ID", Short: "Create a store of a team", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				teamID, err := resolveTeam(ctx, db, team)
				if err != nil || teamID == 0 {
					return errors.Join(errors.New("--team must name an existing team"), err)
				}
				st, err := db.CreateStore(ctx, teamID, args[0])
				if err != nil {
					return err
				}
				return printJSON(st)
			})
		},
	}, newStoreWebhookCmd(cfg), &cobra.Command{
		Use: "list [--team TEAM]", Short: "List stores", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				teamID, err := resolveTeam(ctx, db, team)
				if err != nil {
					return err
				}
				stores, err := db.ListStores(ctx, teamID)
				if err != nil {
					return err
				}
				return printJSON(stores)
			})
		},
	})
	return cmd
}

// newStoreWebhookCmd sets a store's webhook endpoint, as
// PUT /api/v1/stores/{store_id}/webhook does, and prints it with its secret.
func newStoreWebhookCmd(cfg *config.Config) *cobra.Command {
	var hookURL string
	var rotate, allowPrivate bool
	cmd := &cobra.Command{
		Use:   "webhook STORE_ID --webhook-url URL [--rotate-secret] [--allow-private-network]",
		Short: "Set a store's webhook URL (and rotate its secret); print the endpoint with its secret",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkWebhookURL(cmd.Context(), hookURL, allowPrivate); err != nil {
				return err
			}
			return withStores(cmd.Context(), cfg, func(ctx context.Context, stores *storage.Stores) error {
				e, err := stores.Deliveries().SetEndpoint(ctx, args[0], hookURL, rotate)
				if err != nil {
					return err
				}
				return printJSON(endpointJSON{StoreID: e.StoreID, URL: e.URL, Secret: e.Secret, PreviousSecretExpiresAt: e.PreviousSecretExpiresAt})
			})
		},
	}
	webhookURLFlags(cmd.Flags(), &hookURL, &allowPrivate)
	cmd.Flags().BoolVar(&rotate, "rotate-secret", false, "make a new signing secret; the old one signs too for 24 h")
	return cmd
}

// endpointJSON is a webhook endpoint as the admin commands print it.
type endpointJSON struct {
	StoreID                 string     `json:"store_id"`
	URL                     string     `json:"url"`
	Secret                  string     `json:"secret"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
}

func newTokenCmd(cfg *config.Config) *cobra.Command {
	var team, store, name string
	cmd := &cobra.Command{Use: "token", Short: "Issue, list and revoke API tokens"}
	issue := &cobra.Command{
		Use: "issue --team TEAM [--store STORE_ID] [--name NAME]", Short: "Issue a token (printed once)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				teamID, err := resolveTeam(ctx, db, team)
				if err != nil || teamID == 0 {
					return errors.Join(errors.New("--team must name an existing team"), err)
				}
				var storeID *string
				if store != "" {
					storeID = &store
				}
				token, _, err := db.IssueToken(ctx, teamID, storeID, name)
				if err != nil {
					return err
				}
				return printJSON(map[string]any{"team_id": teamID, "store_id": storeID, "token": token})
			})
		},
	}
	issue.Flags().StringVar(&store, "store", "", "bind the token to this store")
	issue.Flags().StringVar(&name, "name", "", "a name to recognise the token by")
	list := &cobra.Command{
		Use: "list [--team TEAM]", Short: "List tokens (never the tokens themselves)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				teamID, err := resolveTeam(ctx, db, team)
				if err != nil {
					return err
				}
				tokens, err := db.ListTokens(ctx, teamID)
				if err != nil {
					return err
				}
				return printJSON(tokens)
			})
		},
	}
	revoke := &cobra.Command{
		Use: "revoke TOKEN_ID", Short: "Revoke a token; every process refuses it within 5 s", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.Atoi(args[0])
			if err != nil {
				return fmt.Errorf("TOKEN_ID %q: want the numeric id that token list shows", args[0])
			}
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				if err := db.RevokeToken(ctx, id); err != nil {
					return err
				}
				return printJSON(map[string]any{"revoked": id})
			})
		},
	}
	cmd.PersistentFlags().StringVar(&team, "team", "", "team id or name")
	cmd.AddCommand(issue, list, revoke)
	return cmd
}

// newPrintCmd holds the operator's actions on Family B prints (until the
// operator panel and its API).
func newPrintCmd(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{Use: "print", Short: "Act on Family B prints as an operator"}
	cmd.AddCommand(&cobra.Command{
		Use:   "cancel PRINT_ID",
		Short: "Cancel a print: its pending render stops, its files go, and the shop sees cancelled",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStores(cmd.Context(), cfg, func(ctx context.Context, stores *storage.Stores) error {
				status, err := stores.Prints().CancelShopPrint(ctx, args[0])
				if err != nil {
					return err
				}
				return printJSON(map[string]string{"print_id": args[0], "status": status})
			})
		},
	})
	return cmd
}

// rotated is what `platen admin keys rotate-links` prints.
type rotated struct {
	Key       string    `json:"key"`
	RotatedAt time.Time `json:"rotated_at"`
	// Links signed with the replaced key verify until they expire, unless
	// the key is rotated again first, which drops it.
	RotateAgainAfter time.Time `json:"rotate_again_after"`
}

func newKeysCmd(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Rotate the service's own keys"}
	cmd.AddCommand(&cobra.Command{
		Use:   "rotate-links",
		Short: "Sign download links with a new key; links already sent keep working until they expire",
		Long: "Replaces the key download links are signed with. Every serve process signs with the new key\n" +
			"within 30 seconds, and checks links with the new key and the one it replaced, so links already\n" +
			"sent keep working until they expire (7 days). A second rotation drops the replaced key: wait\n" +
			"until rotate_again_after, or links sent before the first rotation stop working.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				at, err := db.RotateServiceKey(ctx, server.LinkKeyName)
				if err != nil {
					return err
				}
				return printJSON(rotated{Key: server.LinkKeyName, RotatedAt: at, RotateAgainAfter: at.Add(linktoken.DefaultTTL)})
			})
		},
	})
	return cmd
}
