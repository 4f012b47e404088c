import type { Locale } from '../../shared/http/public-pages.js';

/**
 * The payment link page's texts in the checkout's languages (English, German, Spanish); `{name}` placeholders are
 * filled with the checkout's `fill`. Language negotiation is the checkout's (`?lang=`, then `Accept-Language`).
 */
export interface LinkMessages {
  readonly price: string;
  readonly amount: string;
  readonly amountBounds: string;
  readonly amountFrom: string;
  readonly amountUpTo: string;
  readonly chooseCurrency: string;
  readonly payWith: string;
  readonly tokenOn: string;
  readonly pay: string;
  readonly note: string;
  readonly inactiveTitle: string;
  readonly inactiveText: string;
  readonly expiredTitle: string;
  readonly expiredText: string;
  readonly completedTitle: string;
  readonly completedText: string;
  readonly chooseOne: string;
  readonly badAmount: string;
  readonly cannotPay: string;
  readonly notFoundTitle: string;
  readonly notFoundText: string;
  readonly tooManyTitle: string;
  readonly tooManyText: string;
  readonly unavailableTitle: string;
  readonly unavailableText: string;
}

const en: LinkMessages = {
  price: 'Price',
  amount: 'Amount ({currency})',
  amountBounds: 'Between {min} and {max}.',
  amountFrom: 'At least {min}.',
  amountUpTo: 'At most {max}.',
  chooseCurrency: 'Pay with',
  payWith: 'You pay with {currency}.',
  tokenOn: '{token} on {network}',
  pay: 'Continue to payment',
  note: 'The next page shows the address and the exact amount to send, at the rate of this moment.',
  inactiveTitle: 'This link is no longer active',
  inactiveText: 'The merchant has deactivated this payment link. No payment can be made with it.',
  expiredTitle: 'This link has expired',
  expiredText: 'This payment link is past its end date. No payment can be made with it.',
  completedTitle: 'This offer is complete',
  completedText: 'This payment link has reached the number of payments it takes. No further payment can be made with it.',
  chooseOne: 'Choose a currency.',
  badAmount: 'Check the amount.',
  cannotPay: 'This payment cannot be made in this currency: {reason}',
  notFoundTitle: 'Payment link not found',
  notFoundText: 'There is no payment link at this address. Check the link you were given.',
  tooManyTitle: 'Too many requests',
  tooManyText: 'Please wait a minute before trying again.',
  unavailableTitle: 'Something went wrong',
  unavailableText: 'The page could not be shown. Please try again. Reference: {reference}',
};

const de: LinkMessages = {
  price: 'Preis',
  amount: 'Betrag ({currency})',
  amountBounds: 'Zwischen {min} und {max}.',
  amountFrom: 'Mindestens {min}.',
  amountUpTo: 'Höchstens {max}.',
  chooseCurrency: 'Bezahlen mit',
  payWith: 'Sie bezahlen mit {currency}.',
  tokenOn: '{token} auf {network}',
  pay: 'Weiter zur Zahlung',
  note: 'Die nächste Seite zeigt die Adresse und den genauen Betrag zum aktuellen Kurs.',
  inactiveTitle: 'Dieser Link ist nicht mehr aktiv',
  inactiveText: 'Der Händler hat diesen Zahlungslink deaktiviert. Damit kann nicht mehr bezahlt werden.',
  expiredTitle: 'Dieser Link ist abgelaufen',
  expiredText: 'Dieser Zahlungslink ist abgelaufen. Damit kann nicht mehr bezahlt werden.',
  completedTitle: 'Dieses Angebot ist abgeschlossen',
  completedText: 'Dieser Zahlungslink hat die Zahl der Zahlungen erreicht, die er annimmt. Damit kann nicht mehr bezahlt werden.',
  chooseOne: 'Wählen Sie eine Währung.',
  badAmount: 'Prüfen Sie den Betrag.',
  cannotPay: 'Diese Zahlung ist in dieser Währung nicht möglich: {reason}',
  notFoundTitle: 'Zahlungslink nicht gefunden',
  notFoundText: 'Unter dieser Adresse gibt es keinen Zahlungslink. Prüfen Sie den erhaltenen Link.',
  tooManyTitle: 'Zu viele Anfragen',
  tooManyText: 'Bitte warten Sie eine Minute und versuchen Sie es erneut.',
  unavailableTitle: 'Etwas ist schiefgegangen',
  unavailableText: 'Die Seite konnte nicht angezeigt werden. Bitte versuchen Sie es erneut. Referenz: {reference}',
};

const es: LinkMessages = {
  price: 'Precio',
  amount: 'Importe ({currency})',
  amountBounds: 'Entre {min} y {max}.',
  amountFrom: 'Al menos {min}.',
  amountUpTo: 'Como máximo {max}.',
  chooseCurrency: 'Pagar con',
  payWith: 'Pagas con {currency}.',
  tokenOn: '{token} en {network}',
  pay: 'Continuar al pago',
  note: 'La página siguiente muestra la dirección y el importe exacto a enviar, al tipo de cambio de este momento.',
  inactiveTitle: 'Este enlace ya no está activo',
  inactiveText: 'El comercio ha desactivado este enlace de pago. Ya no se puede pagar con él.',
  expiredTitle: 'Este enlace ha caducado',
  expiredText: 'Este enlace de pago ha pasado su fecha de fin. Ya no se puede pagar con él.',
  completedTitle: 'Esta oferta está completa',
  completedText: 'Este enlace de pago ha alcanzado el número de pagos que acepta. Ya no se puede pagar con él.',
  chooseOne: 'Elige una moneda.',
  badAmount: 'Revisa el importe.',
  cannotPay: 'Este pago no se puede hacer en esta moneda: {reason}',
  notFoundTitle: 'Enlace de pago no encontrado',
  notFoundText: 'No hay ningún enlace de pago en esta dirección. Revisa el enlace que recibiste.',
  tooManyTitle: 'Demasiadas solicitudes',
  tooManyText: 'Espera un minuto antes de volver a intentarlo.',
  unavailableTitle: 'Algo salió mal',
  unavailableText: 'No se pudo mostrar la página. Inténtalo de nuevo. Referencia: {reference}',
};

export const LINK_MESSAGES: Readonly<Record<Locale, LinkMessages>> = { en, de, es };
