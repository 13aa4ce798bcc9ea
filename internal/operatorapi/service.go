// Package operatorapi is the operator API, platen.v1.OperatorService: one
// gRPC service assembled from the packages that own each part (print
// templates and the variants they serve, prints, batches, stores' webhooks,
// fonts, output profiles and teams' press settings, and the staff's teams,
// stores and tokens). Methods not built yet answer
// UNIMPLEMENTED.
package operatorapi

import (
	"context"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/accounts"
	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/templates"
	"github.com/platen-print/platen/internal/webhooks"
)

// Service is the operator API.
type Service struct {
	platenv1.UnimplementedOperatorServiceServer
	templates *templates.Service
	prints    *prints.Service
	batches   *batches.Service
	accounts  *accounts.Service
	webhooks  *webhooks.Service
	catalog   *catalog.Service
	fonts     *fonts.Service
	press     *press.Service
}

// Parts are the services the operator API is made of.
type Parts struct {
	Templates *templates.Service
	Prints    *prints.Service
	Batches   *batches.Service
	Accounts  *accounts.Service
	Webhooks  *webhooks.Service
	Catalog   *catalog.Service
	Fonts     *fonts.Service
	Press     *press.Service
}

// New assembles the operator API.
func New(p Parts) *Service {
	return &Service{templates: p.Templates, prints: p.Prints, batches: p.Batches, accounts: p.Accounts, webhooks: p.Webhooks, catalog: p.Catalog, fonts: p.Fonts, press: p.Press}
}

// GetWebhookEndpoint returns a store's webhook endpoint with its secret.
func (s *Service) GetWebhookEndpoint(ctx context.Context, r *platenv1.GetWebhookEndpointRequest) (*platenv1.WebhookEndpoint, error) {
	return s.webhooks.GetWebhookEndpoint(ctx, r)
}

// SetWebhookEndpoint sets a store's webhook endpoint.
func (s *Service) SetWebhookEndpoint(ctx context.Context, r *platenv1.SetWebhookEndpointRequest) (*platenv1.WebhookEndpoint, error) {
	return s.webhooks.SetWebhookEndpoint(ctx, r)
}

// ListWebhookDeliveries lists a store's deliveries.
func (s *Service) ListWebhookDeliveries(ctx context.Context, r *platenv1.ListWebhookDeliveriesRequest) (*platenv1.ListWebhookDeliveriesResponse, error) {
	return s.webhooks.ListWebhookDeliveries(ctx, r)
}

// ResendWebhookDelivery sends a delivery again.
func (s *Service) ResendWebhookDelivery(ctx context.Context, r *platenv1.ResendWebhookDeliveryRequest) (*platenv1.WebhookDelivery, error) {
	return s.webhooks.ResendWebhookDelivery(ctx, r)
}

// ListTeams lists the teams (staff).
func (s *Service) ListTeams(ctx context.Context, r *platenv1.ListTeamsRequest) (*platenv1.ListTeamsResponse, error) {
	return s.accounts.ListTeams(ctx, r)
}

// CreateTeam creates a team (staff).
func (s *Service) CreateTeam(ctx context.Context, r *platenv1.CreateTeamRequest) (*platenv1.Team, error) {
	return s.accounts.CreateTeam(ctx, r)
}

// ListStores lists stores: every team's for staff, a team operator's own.
func (s *Service) ListStores(ctx context.Context, r *platenv1.ListStoresRequest) (*platenv1.ListStoresResponse, error) {
	return s.accounts.ListStores(ctx, r)
}

// CreateStore creates a store (staff).
func (s *Service) CreateStore(ctx context.Context, r *platenv1.CreateStoreRequest) (*platenv1.Store, error) {
	return s.accounts.CreateStore(ctx, r)
}

// ListTokens lists API tokens (staff).
func (s *Service) ListTokens(ctx context.Context, r *platenv1.ListTokensRequest) (*platenv1.ListTokensResponse, error) {
	return s.accounts.ListTokens(ctx, r)
}

// IssueToken issues an API token (staff).
func (s *Service) IssueToken(ctx context.Context, r *platenv1.IssueTokenRequest) (*platenv1.IssueTokenResponse, error) {
	return s.accounts.IssueToken(ctx, r)
}

// RevokeToken revokes an API token (staff).
func (s *Service) RevokeToken(ctx context.Context, r *platenv1.RevokeTokenRequest) (*platenv1.Token, error) {
	return s.accounts.RevokeToken(ctx, r)
}

// ListBatchOrders lists batch orders.
func (s *Service) ListBatchOrders(ctx context.Context, r *platenv1.ListBatchOrdersRequest) (*platenv1.ListBatchOrdersResponse, error) {
	return s.batches.ListBatchOrders(ctx, r)
}

// CreateBatchOrder creates a batch order for a team, as BatchService's
// does for the team's token.
func (s *Service) CreateBatchOrder(ctx context.Context, r *platenv1.OperatorServiceCreateBatchOrderRequest) (*platenv1.BatchOrder, error) {
	return s.batches.CreateOperatorBatchOrder(ctx, r)
}

// PlanBatchOrder lays out a batch without making it.
func (s *Service) PlanBatchOrder(ctx context.Context, r *platenv1.PlanBatchOrderRequest) (*platenv1.BatchPlan, error) {
	return s.batches.PlanBatchOrder(ctx, r)
}

// GetBatchOrder returns a batch order of a team the operator sees.
func (s *Service) GetBatchOrder(ctx context.Context, r *platenv1.GetBatchOrderRequest) (*platenv1.BatchOrder, error) {
	return s.batches.GetBatchOrder(ctx, r)
}

// ListPrints lists prints of both families.
func (s *Service) ListPrints(ctx context.Context, r *platenv1.ListPrintsRequest) (*platenv1.ListPrintsResponse, error) {
	return s.prints.ListPrints(ctx, r)
}

// CountPrints counts prints in each state.
func (s *Service) CountPrints(ctx context.Context, r *platenv1.CountPrintsRequest) (*platenv1.PrintCounts, error) {
	return s.prints.CountPrints(ctx, r)
}

// GetPrint returns one print.
func (s *Service) GetPrint(ctx context.Context, r *platenv1.GetPrintRequest) (*platenv1.Print, error) {
	return s.prints.GetPrint(ctx, r)
}

// GetPrintOrder returns a print's order with every print of it.
func (s *Service) GetPrintOrder(ctx context.Context, r *platenv1.GetPrintOrderRequest) (*platenv1.PrintOrder, error) {
	return s.prints.GetPrintOrder(ctx, r)
}

// RetryPrint renders a failed print again.
func (s *Service) RetryPrint(ctx context.Context, r *platenv1.RetryPrintRequest) (*platenv1.Print, error) {
	return s.prints.RetryPrint(ctx, r)
}

// FlagPrint fails a print with the operator's reason.
func (s *Service) FlagPrint(ctx context.Context, r *platenv1.FlagPrintRequest) (*platenv1.Print, error) {
	return s.prints.FlagPrint(ctx, r)
}

// CancelPrint cancels a print.
func (s *Service) CancelPrint(ctx context.Context, r *platenv1.CancelPrintRequest) (*platenv1.Print, error) {
	return s.prints.CancelPrint(ctx, r)
}

// CreatePrintTemplate creates a print template.
func (s *Service) CreatePrintTemplate(ctx context.Context, r *platenv1.CreatePrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	return s.templates.CreatePrintTemplate(ctx, r)
}

// GetPrintTemplate returns a print template.
func (s *Service) GetPrintTemplate(ctx context.Context, r *platenv1.GetPrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	return s.templates.GetPrintTemplate(ctx, r)
}

// ListPrintTemplates lists print templates.
func (s *Service) ListPrintTemplates(ctx context.Context, r *platenv1.ListPrintTemplatesRequest) (*platenv1.ListPrintTemplatesResponse, error) {
	return s.templates.ListPrintTemplates(ctx, r)
}

// UpdatePrintTemplate updates a print template.
func (s *Service) UpdatePrintTemplate(ctx context.Context, r *platenv1.UpdatePrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	return s.templates.UpdatePrintTemplate(ctx, r)
}

// DeletePrintTemplate deletes a print template.
func (s *Service) DeletePrintTemplate(ctx context.Context, r *platenv1.DeletePrintTemplateRequest) (*platenv1.DeletePrintTemplateResponse, error) {
	return s.templates.DeletePrintTemplate(ctx, r)
}

// AssignPrintTemplate assigns a print template to variants.
func (s *Service) AssignPrintTemplate(ctx context.Context, r *platenv1.AssignPrintTemplateRequest) (*platenv1.PrintTemplate, error) {
	return s.templates.AssignPrintTemplate(ctx, r)
}

// ListProductVariants lists a team's variants, for assigning templates.
func (s *Service) ListProductVariants(ctx context.Context, r *platenv1.OperatorServiceListProductVariantsRequest) (*platenv1.OperatorServiceListProductVariantsResponse, error) {
	return s.catalog.ListTeamVariants(ctx, r)
}

// CreateFont adds a font for a team's designs.
func (s *Service) CreateFont(ctx context.Context, r *platenv1.CreateFontRequest) (*platenv1.Font, error) {
	return s.fonts.CreateFont(ctx, r)
}

// ListFonts lists fonts.
func (s *Service) ListFonts(ctx context.Context, r *platenv1.ListFontsRequest) (*platenv1.ListFontsResponse, error) {
	return s.fonts.ListFonts(ctx, r)
}

// GetFont returns a font's record.
func (s *Service) GetFont(ctx context.Context, r *platenv1.GetFontRequest) (*platenv1.Font, error) {
	return s.fonts.GetFont(ctx, r)
}

// DeleteFont deletes a font.
func (s *Service) DeleteFont(ctx context.Context, r *platenv1.DeleteFontRequest) (*platenv1.DeleteFontResponse, error) {
	return s.fonts.DeleteFont(ctx, r)
}

// CreateOutputProfile adds a CMYK output ICC profile for a team's prints.
func (s *Service) CreateOutputProfile(ctx context.Context, r *platenv1.CreateOutputProfileRequest) (*platenv1.OutputProfile, error) {
	return s.press.CreateOutputProfile(ctx, r)
}

// ListOutputProfiles lists output profiles.
func (s *Service) ListOutputProfiles(ctx context.Context, r *platenv1.ListOutputProfilesRequest) (*platenv1.ListOutputProfilesResponse, error) {
	return s.press.ListOutputProfiles(ctx, r)
}

// GetOutputProfile returns an output profile's record.
func (s *Service) GetOutputProfile(ctx context.Context, r *platenv1.GetOutputProfileRequest) (*platenv1.OutputProfile, error) {
	return s.press.GetOutputProfile(ctx, r)
}

// DeleteOutputProfile deletes an output profile nothing names.
func (s *Service) DeleteOutputProfile(ctx context.Context, r *platenv1.DeleteOutputProfileRequest) (*platenv1.DeleteOutputProfileResponse, error) {
	return s.press.DeleteOutputProfile(ctx, r)
}

// GetPressSettings returns a team's default press settings.
func (s *Service) GetPressSettings(ctx context.Context, r *platenv1.GetPressSettingsRequest) (*platenv1.PressSettings, error) {
	return s.press.GetPressSettings(ctx, r)
}

// UpdatePressSettings changes a team's default press settings.
func (s *Service) UpdatePressSettings(ctx context.Context, r *platenv1.UpdatePressSettingsRequest) (*platenv1.PressSettings, error) {
	return s.press.UpdatePressSettings(ctx, r)
}
