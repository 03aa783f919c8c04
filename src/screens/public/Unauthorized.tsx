import { ErrorPage } from './ErrorPage.tsx';

export default function Unauthorized() {
  return <ErrorPage code="401" />;
}
