package designversions

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/pagination"
)

// Limits of a version's thumbnails.
const (
	MaxThumbnails      = 50
	maxThumbnailLength = 10_000
)

// Service implements platenv1.DesignServiceServer.
type Service struct {
	platenv1.UnimplementedDesignServiceServer
	store Store
}

// NewService returns the design service backed by store.
func NewService(store Store) *Service { return &Service{store: store} }

// CreateDesignVersion registers a version; the same id with the same
// document again answers the stored version.
func (s *Service) CreateDesignVersion(ctx context.Context, req *platenv1.CreateDesignVersionRequest) (*platenv1.DesignVersion, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	v, err := checkCreate(req)
	if err != nil {
		return nil, err
	}
	v.TeamID = p.TeamID
	stored, err := s.store.RegisterVersion(ctx, v)
	if err != nil {
		return nil, err
	}
	return versionProto(stored), nil
}

func checkCreate(req *platenv1.CreateDesignVersionRequest) (*Version, error) {
	var vs apierr.Violations
	v := &Version{TemplateConfig: req.TemplateConfig, Thumbnails: req.Thumbnails}
	if req.DesignVersionId != nil {
		v.ID = *req.DesignVersionId
		if err := CheckID(v.ID); err != nil {
			vs.Add("design_version_id", "%v", err)
		}
	} else {
		v.ID = uuid.NewString()
	}
	if req.TemplateConfig == "" {
		vs.Add("template_config", "is required")
	} else if doc, err := designdoc.Accept(req.TemplateConfig); err != nil {
		f, msg := designdoc.FieldOf("template_config", err)
		vs.Add(f, "%s", msg)
	} else if v.Fingerprint, err = designdoc.Fingerprint(doc); err != nil {
		vs.Add("template_config", "must URL-decode to a JSON object: %v", err)
	}
	if len(v.Thumbnails) > MaxThumbnails {
		vs.Add("thumbnails", "must hold at most %d URLs", MaxThumbnails)
	}
	for i, u := range v.Thumbnails {
		if u == "" || utf8.RuneCountInString(u) > maxThumbnailLength {
			vs.Add(fmt.Sprintf("thumbnails[%d]", i), "must be a URL of 1 to %d characters", maxThumbnailLength)
		}
	}
	if v.Thumbnails == nil {
		v.Thumbnails = []string{}
	}
	return v, vs.Err()
}

// GetDesignVersion returns a version of the caller's team.
func (s *Service) GetDesignVersion(ctx context.Context, req *platenv1.GetDesignVersionRequest) (*platenv1.DesignVersion, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.store.GetVersion(ctx, p.TeamID, req.DesignVersionId)
	if err != nil {
		return nil, err
	}
	return versionProto(v), nil
}

// ListDesignVersions pages through the caller's versions, newest first.
func (s *Service) ListDesignVersions(ctx context.Context, req *platenv1.ListDesignVersionsRequest) (*platenv1.ListDesignVersionsResponse, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	list, more, err := s.store.ListVersions(ctx, Query{TeamID: p.TeamID, After: page.After, PageSize: page.Size})
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListDesignVersionsResponse{}
	resp.DesignVersions, resp.NextPageToken = pagination.Answer(list, more, versionProto, func(v *Version) pagination.Cursor {
		return pagination.Cursor{CreatedAt: v.CreatedAt, UID: v.ID}
	})
	return resp, nil
}

func versionProto(v *Version) *platenv1.DesignVersion {
	return &platenv1.DesignVersion{
		DesignVersionId: v.ID, TemplateConfig: v.TemplateConfig, Thumbnails: v.Thumbnails,
		CreatedAt: timestamppb.New(v.CreatedAt),
	}
}
