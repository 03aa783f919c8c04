-- Wrong current passwords given from a signed-in session (issue 29, docs/SECURITY.md): counted per session
-- instead of towards the sign-in lockout; the fifth ends the session.
ALTER TABLE "sessions" ADD COLUMN "password_failures" integer DEFAULT 0 NOT NULL;
