import { AccountsPage } from './accounts.tsx';

/** Donor cards: accounts lent by account holders. */
export default function CardsScreen() {
  return <AccountsPage kind="card" />;
}
