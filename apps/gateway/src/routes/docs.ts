import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { buildOpenApiDocument } from '@docgen/contracts';

export function docsRoutes(): Router {
  const document = buildOpenApiDocument();
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serve);
  router.get('/docs', swaggerUi.setup(undefined, { swaggerOptions: { url: '/api/v1/openapi.json' }, customSiteTitle: 'docgen API' }));
  return router;
}
