package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/storage"
)

// newOperatorCmd is `platen admin operator`: operator accounts and their
// operator API tokens.
func newOperatorCmd(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{Use: "operator", Short: "Create operator accounts; issue and revoke operator API tokens"}
	cmd.AddCommand(newOperatorCreate(cfg), newOperatorToken(cfg), newOperatorRevoke(cfg))
	return cmd
}

func newOperatorCreate(cfg *config.Config) *cobra.Command {
	var email, name, team string
	var staff bool
	create := &cobra.Command{
		Use:   "create --email E [--name N] (--staff | --team TEAM)",
		Short: "Create an operator account; print its generated password and first token (shown once)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if staff == (team != "") {
				return errors.New("give exactly one of --staff or --team")
			}
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				var teamID *int
				if team != "" {
					id, err := resolveTeam(ctx, db, team)
					if err != nil || id == 0 {
						return errors.Join(errors.New("--team must name an existing team"), err)
					}
					teamID = &id
				}
				created, err := operators.Create(ctx, db.Operators(), email, name, staff, teamID)
				if err != nil {
					return err
				}
				return printJSON(map[string]any{
					"operator_id": created.ID, "email": created.Email, "staff": created.Staff, "team_id": created.TeamID,
					"password": created.Password, "token": created.Token,
				})
			})
		},
	}
	create.Flags().StringVar(&email, "email", "", "the operator's e-mail address, to sign in with")
	create.Flags().StringVar(&name, "name", "", "the operator's name")
	create.Flags().BoolVar(&staff, "staff", false, "a member of the print shop's staff, who sees every team")
	create.Flags().StringVar(&team, "team", "", "the team (id or name) the operator belongs to, and sees alone")
	_ = create.MarkFlagRequired("email")
	return create
}

func newOperatorToken(cfg *config.Config) *cobra.Command {
	var email string
	token := &cobra.Command{
		Use: "token --email E", Short: "Issue another operator API token (printed once)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			addr, err := operators.NormalizeEmail(email)
			if err != nil {
				return err
			}
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				secret, issued := auth.NewOperatorToken()
				a, id, err := db.Operators().IssueOperatorToken(ctx, addr, issued)
				if err != nil {
					return err
				}
				return printJSON(map[string]any{"operator_id": a.ID, "email": a.Email, "token_id": id, "token": secret})
			})
		},
	}
	token.Flags().StringVar(&email, "email", "", "the operator's e-mail address")
	_ = token.MarkFlagRequired("email")
	return token
}

func newOperatorRevoke(cfg *config.Config) *cobra.Command {
	return &cobra.Command{
		Use: "revoke TOKEN_ID", Short: "Revoke an operator token; every process refuses it within 5 s", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.Atoi(args[0])
			if err != nil {
				return fmt.Errorf("TOKEN_ID %q: want the numeric token_id that operator token printed", args[0])
			}
			return withDB(cmd.Context(), cfg, func(ctx context.Context, db *storage.DB) error {
				if err := db.Operators().RevokeOperatorToken(ctx, id); err != nil {
					return err
				}
				return printJSON(map[string]any{"revoked": id})
			})
		},
	}
}
