/**
 * The README's example, type-checked with the repo (sdk/test/drift.test.ts compares the two): everything
 * but the lines between the two `setup` markers is printed there.
 */
import { createServer } from 'node:http';
import { PaygateClient, verifyCallback } from '@paygate/merchant-sdk';

// setup: what the example takes as given
const { PAYGATE_API_SECRET: apiSecret = '', PAYGATE_WEBHOOK_SECRET: webhookSecret = '' } = process.env;
declare function markPaid(merchantOrderNo: string, amount: string | null): Promise<void>;
// setup end

const paygate = new PaygateClient({ baseUrl: 'https://pay.example.com', merchantId: 'M1001', apiSecret });
const payin = { merchantOrderNo: 'INV-2041', amount: '499.00', notifyUrl: 'https://shop.example/paygate' };
const { order } = await paygate.createPayin(payin);
console.log('Send the payer to', order.payUrl);

createServer(async (req, res) => {
  const body = Buffer.concat(await req.toArray()); // the raw bytes: verify before parsing
  try {
    const event = verifyCallback(webhookSecret, req.headers, body);
    if (event.type === 'payin.paid') await markPaid(event.data.merchantOrderNo, event.data.paidAmount);
    res.writeHead(204).end();
  } catch {
    res.writeHead(400).end();
  }
}).listen(3000);
