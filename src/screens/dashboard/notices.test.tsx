/**
 * A notice's title and text are shown as text: markup a platform user typed is escaped by React, never
 * parsed, and line breaks stay line breaks (the CSS keeps them; no `<br>` is injected from the text).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { NoticeList } from './Notices.tsx';

describe('the dashboard notices', () => {
  it('renders a script title and HTML text as text', () => {
    const html = renderToStaticMarkup(
      <NoticeList
        notices={[
          {
            id: 1,
            title: '<script>alert(1)</script>',
            body: 'Line one\n<img src=x onerror=alert(2)>\nLine three',
            pinned: true,
            audience: 'everyone',
            createdAt: '2026-11-24T08:00:00.000Z',
            updatedAt: '2026-11-24T08:00:00.000Z',
          },
        ]}
      />,
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Line one\n&lt;img src=x onerror=alert(2)&gt;\nLine three');
    expect(html).toContain('class="notice-item pinned"');
  });
});
