import { ErrorPage } from './ErrorPage.tsx';

export default function NotFound() {
  return <ErrorPage code="404" />;
}
