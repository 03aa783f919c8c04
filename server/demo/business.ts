/**
 * The demo business (server/demo.ts seeds it): who the merchants are, their terms and their customers'
 * habits (how many orders a day, at what hours, of what amounts), and a seeded random generator so the
 * workspace has the same shape on every machine.
 */
import { type RechargeStatus, recharge } from '../../contract/machines.ts';
import type { NewMerchant } from '../modules/merchant/service.ts';

export const minute = 60_000;
export const hour = 60 * minute;
export const day = 24 * hour;
/** India Standard Time: the demo business lives in UTC+05:30. */
export const ist = 330 * minute;
export const rupees = (r: number) => Math.round(r * 100);

export interface MerchantSpec {
  code: string;
  name: string;
  /**
   * No e-mail address: a demo's addresses would reach nobody, and a user with one is asked for a code
   * mailed to it whenever they sign in from a new browser (README, "Signing in to the demo").
   */
  owner: { username: string; password: string; nickname: string };
  note: string;
  terms: Omit<NewMerchant, 'name' | 'code' | 'owner' | 'agentId' | 'callbackUrl'>;
  withAgent: boolean;
  /** The merchant's callback receiver has been failing for this many days (0: healthy). */
  callbacksDownDays: number;
  serverIp: string;
  payinsPerDay: number;
  payin: { median: number; sigma: number; points: number[]; returnUrl?: string };
  payoutsPerDay: number;
  payout: { median: number; sigma: number; min: number; max: number };
  /** Daily wallet transfer (collection → payout balance), D0 merchants only. */
  transfers: boolean;
  recharges: {
    day: number;
    amount: number;
    /** What the platform decided (`pending`: nothing yet). */
    outcome: RechargeStatus;
    reference: string;
  }[];
}

export const demoMerchantSpecs: MerchantSpec[] = [
  {
    code: 'M10001',
    name: 'Demo Merchant',
    owner: { username: 'demo', password: 'Demo12345', nickname: 'Demo owner' },
    note: 'D0, the most orders',
    terms: {
      collectionRatePpm: 25_000,
      payoutRatePpm: 10_000,
      payoutFee: 500,
      minAmount: rupees(100),
      maxAmount: rupees(100_000),
      settlementDays: 0,
      payoutIpWhitelist: ['203.0.113.10'],
    },
    withAgent: false,
    callbacksDownDays: 0,
    serverIp: '203.0.113.10',
    payinsPerDay: 60,
    payin: {
      median: rupees(900),
      sigma: 0.95,
      points: [199, 299, 499, 999, 1499, 1999, 2999, 4999].map(rupees),
      returnUrl: 'https://shop.demo.example/checkout/done',
    },
    payoutsPerDay: 4.5,
    payout: { median: rupees(12_000), sigma: 0.8, min: rupees(500), max: rupees(100_000) },
    transfers: true,
    recharges: [
      {
        day: 30,
        amount: rupees(300_000),
        outcome: recharge.state.confirmed,
        reference: 'NEFT-HDFC-77310045',
      },
      {
        day: 16,
        amount: rupees(200_000),
        outcome: recharge.state.confirmed,
        reference: 'NEFT-HDFC-77422981',
      },
      { day: 0, amount: rupees(150_000), outcome: recharge.state.pending, reference: 'RTGS-HDFC-77590112' },
    ],
  },
  {
    code: 'M10002',
    name: 'Bharat Electronics',
    owner: {
      username: 'bharat',
      password: 'Bharat12345',
      nickname: 'Bharat accounts',
    },
    note: 'T+1 settlement, a 10 % rolling reserve for 7 days, larger tickets, payouts funded by recharges',
    terms: {
      collectionRatePpm: 18_000,
      platformFee: 300,
      payoutRatePpm: 8_000,
      payoutFee: 1_000,
      minAmount: rupees(500),
      maxAmount: rupees(200_000),
      settlementDays: 1,
      reserveBp: 1_000,
      reserveDays: 7,
      payoutIpWhitelist: ['198.51.100.24'],
    },
    withAgent: false,
    callbacksDownDays: 0,
    serverIp: '198.51.100.24',
    payinsPerDay: 24,
    payin: {
      median: rupees(6_500),
      sigma: 0.85,
      points: [2_499, 4_999, 7_999, 12_999, 19_999, 34_999, 59_999].map(rupees),
    },
    payoutsPerDay: 3,
    payout: { median: rupees(45_000), sigma: 0.7, min: rupees(2_000), max: rupees(200_000) },
    transfers: false,
    recharges: [
      {
        day: 30,
        amount: rupees(1_000_000),
        outcome: recharge.state.confirmed,
        reference: 'RTGS-ICIC-20118830',
      },
      {
        day: 23,
        amount: rupees(800_000),
        outcome: recharge.state.confirmed,
        reference: 'RTGS-ICIC-20127745',
      },
      {
        day: 16,
        amount: rupees(800_000),
        outcome: recharge.state.confirmed,
        reference: 'RTGS-ICIC-20139002',
      },
      { day: 12, amount: rupees(500_000), outcome: recharge.state.rejected, reference: 'RTGS-ICIC-2014X' },
      { day: 9, amount: rupees(800_000), outcome: recharge.state.confirmed, reference: 'RTGS-ICIC-20151167' },
      { day: 2, amount: rupees(800_000), outcome: recharge.state.confirmed, reference: 'RTGS-ICIC-20163318' },
    ],
  },
  {
    code: 'M10003',
    name: 'Masala Mart',
    owner: {
      username: 'masala',
      password: 'Masala12345',
      nickname: 'Masala Mart ops',
    },
    note: 'brought by agent A10001; its callback server has been failing for 5 days',
    terms: {
      collectionRatePpm: 30_000,
      payoutRatePpm: 12_000,
      payoutFee: 300,
      minAmount: rupees(50),
      maxAmount: rupees(20_000),
      settlementDays: 0,
      payoutIpWhitelist: ['203.0.113.77'],
    },
    withAgent: true,
    callbacksDownDays: 5,
    serverIp: '203.0.113.77',
    payinsPerDay: 34,
    payin: { median: rupees(320), sigma: 0.8, points: [99, 149, 199, 249, 299, 399, 499].map(rupees) },
    payoutsPerDay: 2.5,
    payout: { median: rupees(4_000), sigma: 0.7, min: rupees(500), max: rupees(20_000) },
    transfers: true,
    recharges: [
      { day: 29, amount: rupees(50_000), outcome: recharge.state.confirmed, reference: 'IMPS-SBIN-55012' },
    ],
  },
];

export const demoAgent = { code: 'A10001', name: 'Northstar Partners', commissionPpm: 8_000 };

/** A demo platform user besides the administrator: who, and the built-in role they hold. */
export interface DemoPlatformUser {
  username: string;
  password: string;
  nickname: string;
  role: 'finance' | 'operator';
  note: string;
}

/** The second platform user: finance, who completes what the administrator confirmed. */
export const demoFinanceUser: DemoPlatformUser = {
  username: 'priya',
  password: 'Priya12345',
  nickname: 'Priya (finance)',
  role: 'finance',
  note: 'platform finance: completes settlements, sends withdrawal slips, posts bank statements',
};

/** An operator: imports bank statements and works the queue, but decides no money (docs/SECURITY.md). */
export const demoOperatorUser: DemoPlatformUser = {
  username: 'arjun',
  password: 'Arjun12345',
  nickname: 'Arjun (operator)',
  role: 'operator',
  note: 'platform operator: imports bank statements; posting them is finance’s',
};

export const demoPlatformUsers = [demoFinanceUser, demoOperatorUser];

/** The demo's usernames: the seed runs only when none of them exists. */
export const demoUsernames = [
  ...demoMerchantSpecs.map((m) => m.owner.username),
  ...demoPlatformUsers.map((u) => u.username),
];

// ---- randomness -----------------------------------------------------------------------------------

/** mulberry32: a small seeded generator, so the demo's shape is the same on every machine. */
export function generator(seed: number) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const normal = () => {
    const u = 1 - random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const weighted = (ws: readonly number[]): number => {
    let x = random() * ws.reduce((s, w) => s + w, 0);
    for (let i = 0; i < ws.length; i++) {
      x -= ws[i]!;
      if (x < 0) return i;
    }
    return ws.length - 1;
  };
  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const digits = (n: number) => {
    let s = String(1 + Math.floor(random() * 9));
    while (s.length < n) s += String(Math.floor(random() * 10));
    return s;
  };
  return { random, normal, pick, weighted, between, digits };
}

/** Pay-ins by hour of the Indian day: quiet nights, a lunch peak and an evening peak. */
export const payinHours = [
  0.25, 0.15, 0.08, 0.05, 0.05, 0.08, 0.2, 0.45, 0.8, 1.1, 1.35, 1.5, 1.55, 1.4, 1.3, 1.25, 1.25, 1.3, 1.45,
  1.65, 1.75, 1.5, 1.0, 0.5,
];
/** Payouts are made in office hours. */
export const payoutHours = [
  0, 0, 0, 0, 0, 0, 0, 0.05, 0.3, 1, 1.3, 1.4, 1.2, 1, 1.2, 1.3, 1.2, 1, 0.7, 0.4, 0.2, 0.1, 0.05, 0,
];
/** Sunday … Saturday. */
export const weekdayFactor = [0.55, 1, 1, 1, 1.05, 1.1, 0.7];

export const firstNames =
  'Aarav Vivaan Aditya Vihaan Arjun Sai Reyansh Krishna Ishaan Rohan Ananya Diya Priya Aadhya Kavya Saanvi Meera Pooja Neha Riya Rahul Amit Sunita Deepak Lakshmi Farhan Zoya Harpreet Gurpreet Joseph'.split(
    ' ',
  );
export const lastNames =
  'Sharma Verma Gupta Patel Reddy Nair Iyer Singh Kumar Das Mehta Joshi Rao Khan Chatterjee Banerjee Pillai Menon Shah Agarwal Kapoor Fernandes'.split(
    ' ',
  );
export const vendors =
  'Sharma Traders|Kumar Logistics|Patel Packaging|Nair Cold Storage|Reddy Agro Foods|Mehta Printers|Sai Courier Services|Gupta Wholesale|Iyer & Sons|Deccan Freight|Konkan Spices|Shree Ganesh Enterprises'.split(
    '|',
  );
export const banks = ['HDFC', 'ICIC', 'SBIN', 'UTIB', 'KKBK', 'PUNB', 'BARB', 'YESB', 'IDIB', 'CNRB'];
export const forceReasons = [
  'Payer paid by bank transfer outside the channel; credit seen on the account',
  'Channel outage: payment confirmed on the bank statement',
  'Duplicate reference at the bank; confirmed by finance',
  'Payer paid the exact amount to the collection account (screenshot on file)',
];
export const manualFailReasons = [
  'Beneficiary account closed',
  'Beneficiary name does not match the account',
  'Channel returned the transfer after 2 hours',
];
